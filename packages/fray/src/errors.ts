import { CodedError, hasBrand } from '@marin/rigging';
import type { CodedErrorOptions } from '@marin/rigging';

/** Every error code of `@marin/fray`; callers branch on these, never on message text. */
export type FrayErrorCode =
  | 'FRAY_JOB_FAILED'
  | 'FRAY_JOB_CANCELLED'
  | 'FRAY_JOB_NOT_FOUND'
  | 'FRAY_JOB_ALREADY_EXISTS'
  | 'FRAY_TIMEOUT'
  | 'FRAY_WAIT_TIMEOUT'
  | 'FRAY_ENTRYPOINT_NOT_PORTABLE'
  | 'FRAY_BACKEND_UNAVAILABLE'
  | 'FRAY_INVALID_ARGUMENT'
  | 'FRAY_ACTOR_NOT_READY'
  | 'FRAY_ACTOR_DEAD'
  | 'FRAY_ACTOR_UNAVAILABLE'
  | 'FRAY_ACTOR_METHOD_NOT_FOUND'
  | 'FRAY_ACTOR_METHOD_FAILED'
  | 'FRAY_ACTOR_UNSERIALIZABLE'
  | 'FRAY_ACTOR_PROTOCOL'
  | 'FRAY_ACTOR_CALL_CANCELLED';

const RETRYABLE: ReadonlySet<FrayErrorCode> = new Set<FrayErrorCode>(['FRAY_BACKEND_UNAVAILABLE', 'FRAY_ACTOR_UNAVAILABLE']);
const BRAND = Symbol.for('@marin/fray/FrayError');

/** The one error class of `@marin/fray`: a closed `code`, a `retryable` flag and a `cause` chain. */
export class FrayError extends CodedError<FrayErrorCode> {
  override readonly name: string = 'FrayError';
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

  /** Wraps whatever a boundary caught; a FrayError passes through unchanged. */
  static from(e: unknown, code: FrayErrorCode = 'FRAY_BACKEND_UNAVAILABLE'): FrayError {
    if (FrayError.is(e)) return e;
    return new FrayError(code, e instanceof Error ? e.message : String(e), { cause: e });
  }
}

/** A job ended `failed` or `stopped` while its caller asked to raise on failure. */
export class JobFailed extends FrayError {
  override readonly name: string = 'JobFailed';

  /**
   * @param jobId the failed job's id
   * @param failedStatus `failed` or `stopped`
   * @param cause the original error (local backend) or the backend's status error
   */
  constructor(
    readonly jobId: string,
    readonly failedStatus: 'failed' | 'stopped',
    message: string,
    cause?: unknown,
  ) {
    super('FRAY_JOB_FAILED', message, { cause, details: { jobId, failedStatus } });
  }
}

/** `wait()` or `waitAll()` ran past its `timeoutMs`; the jobs keep running. */
export class WaitTimeout extends FrayError {
  override readonly name: string = 'WaitTimeout';

  /**
   * @param jobIds the jobs still unfinished at the deadline
   * @param timeoutMs the timeout that ran out
   */
  constructor(
    readonly jobIds: readonly string[],
    readonly timeoutMs: number,
  ) {
    super('FRAY_WAIT_TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${jobIds.map((j) => `"${j}"`).join(', ')}`, {
      details: { jobIds: [...jobIds], timeoutMs },
    });
  }
}
