import { CodedError, hasBrand } from '@marin/rigging';
import type { CodedErrorOptions } from '@marin/rigging';

/** Every error code of `@marin/fray`; callers branch on these, never on message text. */
export type FrayErrorCode =
  | 'FRAY_JOB_FAILED'
  | 'FRAY_JOB_CANCELLED'
  | 'FRAY_JOB_NOT_FOUND'
  | 'FRAY_JOB_ALREADY_EXISTS'
  | 'FRAY_TIMEOUT'
  | 'FRAY_BACKEND_UNAVAILABLE'
  | 'FRAY_INVALID_ARGUMENT';

const RETRYABLE: ReadonlySet<FrayErrorCode> = new Set<FrayErrorCode>(['FRAY_BACKEND_UNAVAILABLE']);
const BRAND = Symbol.for('@marin/fray/FrayError');

/** The one error class of `@marin/fray`: a closed `code`, a `retryable` flag and a `cause` chain. */
export class FrayError extends CodedError<FrayErrorCode> {
  override readonly name = 'FrayError';
  readonly [BRAND] = true;

  constructor(code: FrayErrorCode, message: string, opts: CodedErrorOptions = {}) {
    super(code, message, opts, RETRYABLE);
  }

  /** Brand check that still works when two copies of the module are loaded. */
  static is(e: unknown): e is FrayError {
    return hasBrand(e, BRAND);
  }

  /** True when `e` is a FrayError carrying `code`. */
  static hasCode(e: unknown, code: FrayErrorCode): e is FrayError {
    return FrayError.is(e) && e.code === code;
  }
}
