import { CodedError, hasBrand } from '@marin/rigging';
import type { CodedErrorOptions } from '@marin/rigging';

/** Every error code of `@marin/executor`; callers branch on these, never on message text. */
export type ExecutorErrorCode =
  | 'EXECUTOR_STEP_FAILED'
  | 'EXECUTOR_PREVIOUSLY_FAILED'
  | 'EXECUTOR_CYCLE'
  | 'EXECUTOR_VERSION_CONFLICT'
  | 'EXECUTOR_LEASE_LOST'
  | 'EXECUTOR_MATERIALIZE_FAILED'
  | 'EXECUTOR_INTERRUPTED'
  | 'EXECUTOR_INVALID_ARGUMENT'
  | 'EXECUTOR_INVALID_VERSION'
  | 'EXECUTOR_MUTABLE_DEPENDENCY'
  | 'EXECUTOR_UNDECLARED_DEPENDENCY'
  | 'EXECUTOR_FINGERPRINT_MISMATCH'
  | 'EXECUTOR_RESULT_TYPE_MISMATCH'
  | 'EXECUTOR_UNCANONICAL_CONFIG'
  | 'EXECUTOR_ARTIFACT_NOT_FOUND';

const RETRYABLE: ReadonlySet<ExecutorErrorCode> = new Set<ExecutorErrorCode>([]);
const BRAND = Symbol.for('@marin/executor/ExecutorError');

/** The one error class of `@marin/executor`: a closed `code`, a `retryable` flag and a `cause` chain. */
export class ExecutorError extends CodedError<ExecutorErrorCode> {
  override readonly name = 'ExecutorError';
  readonly [BRAND] = true;

  constructor(code: ExecutorErrorCode, message: string, opts: CodedErrorOptions = {}) {
    super(code, message, opts, RETRYABLE);
  }

  /** Brand check that still works when two copies of the module are loaded. */
  static is(e: unknown): e is ExecutorError {
    return hasBrand(e, BRAND);
  }

  /** True when `e` is a ExecutorError carrying `code`. */
  static hasCode(e: unknown, code: ExecutorErrorCode): e is ExecutorError {
    return ExecutorError.is(e) && e.code === code;
  }
}
