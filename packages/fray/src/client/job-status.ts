/** The backend-neutral state of a job. */
export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'stopped';

/** Every {@link JobStatus}, in lifecycle order. */
export const JOB_STATUSES: readonly JobStatus[] = Object.freeze(['pending', 'running', 'succeeded', 'failed', 'stopped']);

/** True for the terminal statuses `succeeded`, `failed` and `stopped`. */
export function isFinished(status: JobStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'stopped';
}
