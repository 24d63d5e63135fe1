import { ExponentialBackoff, pollUntil } from '@marin/rigging';
import { WaitTimeout } from '../errors.js';
import type { JobHandle, WaitOptions } from './client.js';
import { isFinished } from './job-status.js';
import type { JobStatus } from './job-status.js';

/** First sleep between polling rounds of {@link waitAll}. */
export const WAIT_ALL_INITIAL_SLEEP_MS = 50;
/** Growth of the sleep per round. */
export const WAIT_ALL_BACKOFF = 1.5;
/** Cap of the sleep between rounds. */
export const WAIT_ALL_MAX_SLEEP_MS = 2000;

/**
 * Waits for every job, polling each unfinished handle's `status()` and sleeping 50 ms, ×1.5 per round, capped at
 * 2 s. Returns the final statuses in input order.
 *
 * @throws {WaitTimeout} FRAY_WAIT_TIMEOUT listing the unfinished jobs when `timeoutMs` runs out
 * @throws {JobFailed} FRAY_JOB_FAILED for the first job seen `failed` or `stopped` (with `raiseOnFailure`, the default)
 */
export async function waitAll(jobs: readonly JobHandle[], options: WaitOptions = {}): Promise<JobStatus[]> {
  const { timeoutMs, raiseOnFailure = true } = options;
  const statuses: (JobStatus | undefined)[] = jobs.map(() => undefined);
  const pollRound = async (): Promise<boolean> => {
    for (const [i, job] of jobs.entries()) {
      if (statuses[i] !== undefined) continue;
      const status = await job.status();
      if (!isFinished(status)) continue;
      statuses[i] = status;
      if (raiseOnFailure && (status === 'failed' || status === 'stopped')) {
        // The handle's own wait() builds the JobFailed with the backend's cause; the job is finished, so it returns at once.
        await job.wait({ raiseOnFailure: true });
      }
    }
    return statuses.every((s) => s !== undefined);
  };
  const interval = new ExponentialBackoff({ initialMs: WAIT_ALL_INITIAL_SLEEP_MS, factor: WAIT_ALL_BACKOFF, maximumMs: WAIT_ALL_MAX_SLEEP_MS, jitter: 0 });
  if (!(await pollUntil(pollRound, { timeoutMs, interval }))) {
    throw new WaitTimeout(jobs.filter((_, i) => statuses[i] === undefined).map((j) => j.jobId), timeoutMs ?? 0);
  }
  return statuses as JobStatus[];
}
