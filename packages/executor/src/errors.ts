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

/** Options of {@link stepFailed}. */
export interface StepFailedOptions {
  /** What went wrong. */
  cause: unknown;
  /** A Fray job's final status: the message ends `; status=<status>`. */
  status?: string;
  /** Details beside `step` (a job's `jobId`, `status`, `logTail`). */
  details?: Record<string, unknown>;
}

const STEP_FAILED_PREFIX = 'Step failed: ';

/**
 * The error one failed step ends with: EXECUTOR_STEP_FAILED `Step failed: <label>` (`; status=<status>` for a
 * Fray job), `details.step` = the label, `cause` = what went wrong.
 */
export function stepFailed(label: string, opts: StepFailedOptions): ExecutorError {
  const status = opts.status === undefined ? '' : `; status=${opts.status}`;
  return new ExecutorError('EXECUTOR_STEP_FAILED', `${STEP_FAILED_PREFIX}${label}${status}`, {
    cause: opts.cause,
    details: { step: label, ...opts.details },
  });
}

/**
 * True for the generic wrappers around the error worth reporting: a step's `Step failed: <label>` ({@link stepFailed})
 * and a run's `<n> step(s) failed`. Structural, so it also holds for errors of another copy of this module.
 */
export function isStepFailureWrapper(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, message } = e as { code?: unknown; message?: unknown };
  return code === 'EXECUTOR_STEP_FAILED' && typeof message === 'string' && (message.startsWith(STEP_FAILED_PREFIX) || / step\(s\) failed$/.test(message));
}
