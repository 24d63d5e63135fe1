import { ExponentialBackoff, defaultSleep, pollUntil } from '@marin/rigging';
import type { JobHandle, WaitOptions } from '../../client/client.js';
import type { FrayLogger } from '../../client/logger.js';
import { isFinished } from '../../client/job-status.js';
import type { JobStatus } from '../../client/job-status.js';
import { FrayError, JobFailed, WaitTimeout } from '../../errors.js';
import { stopJobTrees } from './job-tree.js';
import { PYTHON_ENV_FAILED_EXIT, pythonEnvFailureOf } from './python-env-launcher.js';
import type { RayJobInfo, RayJobState, RayJobsApi } from './ray-jobs-api.js';

/** First sleep of `wait()`'s polling on Ray. */
export const RAY_WAIT_INITIAL_SLEEP_MS = 100;
/** Cap of the sleep between polls. */
export const RAY_WAIT_MAX_SLEEP_MS = 2000;

/** Fray's status of a Ray job state. */
export function frayStatusOfRayState(state: RayJobState): JobStatus {
  switch (state) {
    case 'PENDING':
      return 'pending';
    case 'RUNNING':
      return 'running';
    case 'SUCCEEDED':
      return 'succeeded';
    case 'FAILED':
      return 'failed';
    case 'STOPPED':
      return 'stopped';
  }
}

/** Options of {@link RayJobHandle.followLogs}. */
export interface FollowLogsOptions {
  /** How often the logs are re-read. @default 500 */
  pollMs?: number;
  /** Stops following early. */
  signal?: AbortSignal;
}

/** A job on a Ray cluster, named by its submission id. */
export class RayJobHandle implements JobHandle {
  /** Ray accepted a stop; a job it still lists as pending then never starts, so it is reported `stopped`. */
  private stopAccepted = false;

  constructor(
    readonly jobId: string,
    private readonly api: RayJobsApi,
    private readonly logger: FrayLogger,
  ) {}

  /**
   * Everything Ray says about the job, including `message`: why a pending job has not started (e.g. it waits for
   * resources the cluster lacks), or why it failed.
   * @throws {FrayError} FRAY_JOB_NOT_FOUND when Ray does not know the job
   */
  async info(): Promise<RayJobInfo> {
    const info = await this.api.get(this.jobId);
    if (info === null) throw new FrayError('FRAY_JOB_NOT_FOUND', `Ray does not know job "${this.jobId}"`, { details: { jobId: this.jobId } });
    return info;
  }

  /** The job's status from `GET /api/jobs/{id}`. */
  async status(): Promise<JobStatus> {
    return this.statusOf(await this.info());
  }

  /** Ray's `message` while the job is `PENDING` (e.g. that it waits for resources); `undefined` otherwise. */
  async pendingReason(): Promise<string | undefined> {
    const info = await this.info();
    if (this.statusOf(info) !== 'pending') return undefined;
    const reason = info.message.trim();
    return reason === '' ? undefined : reason;
  }

  private statusOf(info: RayJobInfo): JobStatus {
    if (this.stopAccepted && info.state === 'PENDING') return 'stopped';
    return frayStatusOfRayState(info.state);
  }

  /** Polls (by default 100 ms, ×1.5, capped at 2 s) until the job is finished. */
  async wait(options: WaitOptions = {}): Promise<JobStatus> {
    const { timeoutMs, raiseOnFailure = true, pollInitialMs = RAY_WAIT_INITIAL_SLEEP_MS, pollBackoff = 1.5 } = options;
    const interval = new ExponentialBackoff({ initialMs: pollInitialMs, factor: pollBackoff, maximumMs: RAY_WAIT_MAX_SLEEP_MS, jitter: 0 });
    let info = undefined as RayJobInfo | undefined;
    let status = 'pending' as JobStatus;
    const finished = await pollUntil(
      async () => {
        info = await this.info();
        status = this.statusOf(info);
        return isFinished(status);
      },
      { timeoutMs, interval },
    );
    if (!finished || info === undefined) throw new WaitTimeout([this.jobId], timeoutMs ?? 0);
    if (status === 'failed' || status === 'stopped') {
      const envFailure = info.exitCode === PYTHON_ENV_FAILED_EXIT ? pythonEnvFailureOf(await this.logs({ maxLines: 200 }).catch(() => [] as string[])) : null;
      const reason =
        envFailure === null ? (info.message.split('\n')[0] ?? '') : `cannot build the Python environment of "${envFailure.lock}": ${envFailure.errorText}`;
      const message = `Job ${this.jobId} ${info.state}: ${reason}`;
      if (raiseOnFailure) {
        const logTail = await this.logs({ maxLines: 50 }).catch(() => [] as string[]);
        const details = { state: info.state, errorType: info.errorType, exitCode: info.exitCode, logTail, ...(envFailure ?? {}) };
        const cause = new FrayError('FRAY_JOB_FAILED', envFailure === null ? info.message || info.state : reason, { details });
        throw new JobFailed(this.jobId, status, message, cause);
      }
      this.logger.warn(message);
    }
    return status;
  }

  /** The last `maxLines` lines of the job's output (Ray keeps the driver's whole log). */
  async logs(options: { maxLines?: number } = {}): Promise<string[]> {
    const lines = splitLines(await this.api.logs(this.jobId));
    return lines.slice(-(options.maxLines ?? 1000));
  }

  /**
   * Follows the job's output: yields each new line as it appears and ends once the job is finished and its
   * last lines are read. Ray streams logs over a websocket (`/logs/tail`); this re-reads `/logs` instead, which
   * needs nothing beyond `fetch`.
   */
  async *followLogs(options: FollowLogsOptions = {}): AsyncGenerator<string> {
    const pollMs = options.pollMs ?? 500;
    let seen = 0;
    let partial = '';
    for (;;) {
      const finished = isFinished(await this.status());
      const text = await this.api.logs(this.jobId);
      const fresh = text.length >= seen ? text.slice(seen) : text;
      seen = text.length;
      const parts = (partial + fresh).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) yield line;
      if (finished || options.signal?.aborted === true) {
        if (partial !== '') yield partial;
        return;
      }
      // An abort ends the wait early; the next pass reads the last lines and returns.
      await defaultSleep(pollMs, options.signal).catch(() => undefined);
    }
  }

  /**
   * Stops the job (`POST /api/jobs/{id}/stop`) and then every unfinished job it submitted from inside itself,
   * transitively (`metadata.fray_parent`), as Iris stops a job with its children. A no-op on a finished job
   * without live descendants.
   */
  async terminate(): Promise<void> {
    const { rootsAccepted } = await stopJobTrees(this.api, [this.jobId]);
    if (rootsAccepted[0] === true) this.stopAccepted = true;
  }
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
