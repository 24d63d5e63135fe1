import { parsePythonEnvBuildFailure } from '@marin/iris/core';
import { ExponentialBackoff, pollUntil } from '@marin/rigging';
import type { JobHandle, WaitOptions } from '../../client/client.js';
import type { FrayLogger } from '../../client/logger.js';
import { isFinished } from '../../client/job-status.js';
import type { JobStatus } from '../../client/job-status.js';
import { FrayError, JobFailed, WaitTimeout } from '../../errors.js';
import type { IrisJobClient } from './iris-job-client.js';
import { frayStatusOfIrisState } from './job-state-map.js';

/** First sleep of `wait()`'s polling on Iris. */
export const IRIS_WAIT_INITIAL_SLEEP_MS = 100;
/** Cap of the sleep between polls. */
export const IRIS_WAIT_MAX_SLEEP_MS = 2000;

/** Wraps an Iris client error at the Fray boundary, keeping it as `cause` and its `retryable` flag. */
export function frayErrorOfIris(e: unknown, what: string): FrayError {
  if (FrayError.is(e)) return e;
  const code = typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
  const retryable = typeof e === 'object' && e !== null && 'retryable' in e ? Boolean((e as { retryable: unknown }).retryable) : false;
  if (code === 'IRIS_INVALID_ARGUMENT') return new FrayError('FRAY_INVALID_ARGUMENT', `iris rejected ${what}`, { cause: e });
  if (code === 'IRIS_JOB_NOT_FOUND' || code === 'IRIS_NOT_FOUND') return new FrayError('FRAY_JOB_NOT_FOUND', `${what}: no such job`, { cause: e });
  return new FrayError('FRAY_BACKEND_UNAVAILABLE', `iris call failed: ${what}`, { cause: e, retryable });
}

/** A job on an Iris cluster. */
export class IrisJobHandle implements JobHandle {
  constructor(
    readonly jobId: string,
    private readonly client: IrisJobClient,
    private readonly logger: FrayLogger,
  ) {}

  /**
   * The job's status from the cheap `GetJobStates`.
   * @throws {FrayError} FRAY_JOB_NOT_FOUND when the controller does not know the job
   */
  async status(): Promise<JobStatus> {
    let states: ReadonlyMap<string, string>;
    try {
      states = await this.client.getJobStates([this.jobId]);
    } catch (e) {
      throw frayErrorOfIris(e, `status of "${this.jobId}"`);
    }
    const state = states.get(this.jobId);
    if (state === undefined) throw new FrayError('FRAY_JOB_NOT_FOUND', `iris does not know job "${this.jobId}"`, { details: { jobId: this.jobId } });
    return frayStatusOfIrisState(state);
  }

  /** The controller's pending reason (what `iris job summary` shows); `undefined` once nothing of the job is pending. */
  async pendingReason(): Promise<string | undefined> {
    let info: { pendingReason: string };
    try {
      info = await this.client.getJob(this.jobId);
    } catch (e) {
      throw frayErrorOfIris(e, `pending reason of "${this.jobId}"`);
    }
    return info.pendingReason === '' ? undefined : info.pendingReason;
  }

  /** Polls the state (by default 100 ms, ×1.5, capped at 2 s) until the job is finished. */
  async wait(options: WaitOptions = {}): Promise<JobStatus> {
    const { timeoutMs, raiseOnFailure = true, pollInitialMs = IRIS_WAIT_INITIAL_SLEEP_MS, pollBackoff = 1.5 } = options;
    const interval = new ExponentialBackoff({ initialMs: pollInitialMs, factor: pollBackoff, maximumMs: IRIS_WAIT_MAX_SLEEP_MS, jitter: 0 });
    let status = 'pending' as JobStatus;
    const finished = await pollUntil(async () => isFinished((status = await this.status())), { timeoutMs, interval });
    if (!finished) throw new WaitTimeout([this.jobId], timeoutMs ?? 0);
    if (status === 'failed' || status === 'stopped') {
      let info: { state: string; error: string; exitCode: number };
      try {
        info = await this.client.getJob(this.jobId);
      } catch (e) {
        throw frayErrorOfIris(e, `details of "${this.jobId}"`);
      }
      // A lock that did not install: the worker reports the lock and the installer's text in a known form.
      const envFailure = parsePythonEnvBuildFailure(info.error, info.exitCode);
      const reason = envFailure === null ? info.error : `cannot build the Python environment of "${envFailure.lock}": ${envFailure.errorText}`;
      const message = `Job ${this.jobId} ${info.state.replace(/^JOB_STATE_/, '')}: ${reason}`;
      if (raiseOnFailure) {
        const details = { state: info.state, exitCode: info.exitCode, ...(envFailure ?? {}) };
        const cause = new FrayError('FRAY_JOB_FAILED', reason || info.state, { details });
        throw new JobFailed(this.jobId, status, message, cause);
      }
      this.logger.warn(message);
    }
    return status;
  }

  /** The tail of the job's log lines, children included. */
  async logs(options: { maxLines?: number } = {}): Promise<string[]> {
    try {
      const page = await this.client.fetchLogs({ jobId: this.jobId, includeChildren: true, maxLines: options.maxLines ?? 1000, tail: true });
      return page.entries.map((e) => e.data);
    } catch (e) {
      throw frayErrorOfIris(e, `logs of "${this.jobId}"`);
    }
  }

  /** `TerminateJob` with children. */
  async terminate(): Promise<void> {
    try {
      await this.client.terminateJob(this.jobId, { includeChildren: true });
    } catch (e) {
      throw frayErrorOfIris(e, `terminate "${this.jobId}"`);
    }
  }
}
