import { CodedError, hasBrand } from './coded-error.js';
import type { CodedErrorOptions } from './coded-error.js';

/** Every error code of `@marin/rigging`; callers branch on these, never on message text. */
export type RiggingErrorCode =
  | 'RIGGING_NOT_FOUND'
  | 'RIGGING_PERMISSION_DENIED'
  | 'RIGGING_UNAVAILABLE'
  | 'RIGGING_BUDGET_EXCEEDED'
  | 'RIGGING_CONDITIONAL_WRITE_FAILED'
  | 'RIGGING_LEASE_LOST'
  | 'RIGGING_LOCK_TIMEOUT'
  | 'RIGGING_UNSUPPORTED'
  | 'RIGGING_INVALID_ARGUMENT'
  | 'RIGGING_ENV_BUILD_FAILED';

const RETRYABLE: ReadonlySet<RiggingErrorCode> = new Set<RiggingErrorCode>(['RIGGING_UNAVAILABLE']);
const BRAND = Symbol.for('@marin/rigging/RiggingError');

/** The one error class of `@marin/rigging`: a closed `code`, a `retryable` flag and a `cause` chain. */
export class RiggingError extends CodedError<RiggingErrorCode> {
  override readonly name = 'RiggingError';
  readonly [BRAND] = true;

  constructor(code: RiggingErrorCode, message: string, opts: CodedErrorOptions = {}) {
    super(code, message, opts, RETRYABLE);
  }

  /** Brand check that still works when two copies of the module are loaded. */
  static is(e: unknown): e is RiggingError {
    return hasBrand(e, BRAND);
  }

  /** True when `e` is a RiggingError carrying `code`. */
  static hasCode(e: unknown, code: RiggingErrorCode): e is RiggingError {
    return RiggingError.is(e) && e.code === code;
  }
}
