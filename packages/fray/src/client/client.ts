import type { JobRequest } from '../request/job-request.js';
import type { JobStatus } from './job-status.js';

/** Options of {@link Client.submit}. */
export interface SubmitOptions {
  /**
   * On a name conflict, return a handle to the existing job instead of throwing `JobAlreadyExists`.
   * @default true
   */
  adoptExisting?: boolean;
}

/** Options of {@link JobHandle.wait} and `waitAll`. */
export interface WaitOptions {
  /** Give up after this long with `WaitTimeout` (the job keeps running). @default no timeout */
  timeoutMs?: number;
  /** Throw `JobFailed` when a job ends `failed` or `stopped`. @default true */
  raiseOnFailure?: boolean;
  /**
   * First re-poll interval of backends that poll (Iris); callers for which seeing the end soon
   * matters (short remote steps) pass a smaller one. Event-driven backends ignore it.
   * @default 100 (Marin's schedule)
   */
  pollInitialMs?: number;
  /** Growth factor of the re-poll interval, capped at 2 s. @default 1.5 */
  pollBackoff?: number;
}

/** A live job: poll it, wait for it, read its output, stop it. */
export interface JobHandle {
  /** Backend id: `local-<name>-<8 hex>` locally, the Iris job id (`/user/name`) on Iris. */
  readonly jobId: string;
  /** The current status; cheap. */
  status(): Promise<JobStatus>;
  /**
   * Resolves with the final status.
   * @throws {JobFailed} FRAY_JOB_FAILED when the job ends `failed`/`stopped` and `raiseOnFailure` is on
   * @throws {WaitTimeout} FRAY_WAIT_TIMEOUT when `timeoutMs` runs out
   */
  wait(options?: WaitOptions): Promise<JobStatus>;
  /**
   * Why the job is not running yet, in the backend's words, or `undefined` when it is not pending or the
   * backend gives no reason. Iris: the controller's pending reason (e.g. no worker has the requested TPU);
   * Ray: the job's `message` while it is `PENDING`; local: `waiting for a free slot (N of M running)`.
   * Meant for progress reports; cheap enough to poll every few seconds.
   * @throws {FrayError} FRAY_JOB_NOT_FOUND when the backend does not know the job
   */
  pendingReason(): Promise<string | undefined>;
  /** The last output lines of the job. @default maxLines 1000 */
  logs(options?: { maxLines?: number }): Promise<string[]>;
  /** Stops the job; it ends `stopped`. Idempotent, and a no-op on a finished job. */
  terminate(): Promise<void>;
}

/** A backend that runs jobs: the local process pool or an Iris cluster. */
export interface Client extends AsyncDisposable {
  /**
   * Submits a job and returns once the backend accepted it.
   * @throws {FrayError} FRAY_INVALID_ARGUMENT for a bad request, FRAY_ENTRYPOINT_NOT_PORTABLE for a callable a remote backend cannot run
   * @throws {JobAlreadyExists} FRAY_JOB_ALREADY_EXISTS on a name conflict with `adoptExisting: false`
   */
  submit(request: JobRequest, options?: SubmitOptions): Promise<JobHandle>;
  /**
   * Stops accepting jobs and releases the backend. With `wait` (default true, as in Marin) it first waits for the
   * submitted jobs to finish; with `wait: false` the local backend terminates them (cluster jobs keep running).
   */
  shutdown(options?: { wait?: boolean }): Promise<void>;
  /** `shutdown({ wait: false })`; also what `await using` calls. */
  close(): Promise<void>;
}
