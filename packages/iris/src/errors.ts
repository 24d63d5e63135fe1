import { CodedError, hasBrand } from '@marin/rigging';
import type { CodedErrorOptions } from '@marin/rigging';

/** Every error code of `@marin/iris`; callers branch on these, never on message text. */
export type IrisErrorCode =
  | 'IRIS_INVALID_ARGUMENT'
  | 'IRIS_JOB_NOT_FOUND'
  | 'IRIS_UNAUTHENTICATED'
  | 'IRIS_INSUFFICIENT_RESOURCES'
  | 'IRIS_UNAVAILABLE'
  | 'IRIS_DEADLINE_EXCEEDED'
  | 'IRIS_INTERNAL';

const RETRYABLE: ReadonlySet<IrisErrorCode> = new Set<IrisErrorCode>(['IRIS_INSUFFICIENT_RESOURCES', 'IRIS_UNAVAILABLE', 'IRIS_DEADLINE_EXCEEDED']);
const BRAND = Symbol.for('@marin/iris/IrisError');

/** The one error class of `@marin/iris`: a closed `code`, a `retryable` flag and a `cause` chain. */
export class IrisError extends CodedError<IrisErrorCode> {
  override readonly name = 'IrisError';
  readonly [BRAND] = true;

  constructor(code: IrisErrorCode, message: string, opts: CodedErrorOptions = {}) {
    super(code, message, opts, RETRYABLE);
  }

  /** Brand check that still works when two copies of the module are loaded. */
  static is(e: unknown): e is IrisError {
    return hasBrand(e, BRAND);
  }

  /** True when `e` is a IrisError carrying `code`. */
  static hasCode(e: unknown, code: IrisErrorCode): e is IrisError {
    return IrisError.is(e) && e.code === code;
  }
}
