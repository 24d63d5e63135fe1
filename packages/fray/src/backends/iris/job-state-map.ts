import type { JobStatus } from '../../client/job-status.js';

/**
 * Maps an Iris `JobState` name to a Fray status: `RUNNING`/`SUCCEEDED` map directly; `FAILED`, `WORKER_FAILED` and
 * `UNSCHEDULABLE` are `failed`; `KILLED` is `stopped`; `PENDING`, `BUILDING` and anything unknown are `pending`.
 * Accepts the bare names and the `JOB_STATE_` prefixed wire names.
 */
export function frayStatusOfIrisState(state: string): JobStatus {
  switch (state.replace(/^JOB_STATE_/, '')) {
    case 'RUNNING':
      return 'running';
    case 'SUCCEEDED':
      return 'succeeded';
    case 'FAILED':
    case 'WORKER_FAILED':
    case 'UNSCHEDULABLE':
      return 'failed';
    case 'KILLED':
      return 'stopped';
    default:
      return 'pending';
  }
}
