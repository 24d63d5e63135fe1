import { isJobId } from '../core/job-names.js';
import { JobState } from '../gen/iris/v1/types.js';
import type { ControllerState } from './controller-state.js';
import type { PrunedJobRow } from './store/log-archive-store.js';

/** A job gone from the controller's database (pruned after `jobRetentionMs`) whose logs are in the log archive. */
export interface PrunedJob extends PrunedJobRow {
  /** Where its log files are: `<archive>/<job path>` (its child jobs below it). */
  readonly logsUrl: string;
}

/**
 * What is left of `jobId` once it is no longer in the database: its `log_archive` row (written when
 * it was pruned) and, for a job pruned before that row said how it ended or a database that lost
 * the row, the archive's `job.json`. Reads storage only in that second case.
 * @returns undefined when the job is in the database, was never archived, the controller keeps no
 *   archive, or `jobId` is not a job id
 */
export async function findPrunedJob(state: ControllerState, jobId: string): Promise<PrunedJob | undefined> {
  const archive = state.archive;
  if (archive === undefined || !isJobId(jobId) || state.store.job(jobId) !== undefined) return undefined;
  const row = state.logArchive.prunedJob(jobId);
  const logsUrl = archive.jobUrl(jobId);
  if (row !== undefined && row.state !== JobState.JOB_STATE_UNSPECIFIED) return { ...row, logsUrl };
  const marker = await archive.readMarker(jobId);
  if (marker === undefined) return row === undefined ? undefined : { ...row, logsUrl };
  return {
    jobId,
    submittedAtMs: marker.submittedAtMs,
    state: typeof marker.state === 'number' ? marker.state : JobState.JOB_STATE_UNSPECIFIED,
    finishedAtMs: row?.finishedAtMs ?? 0,
    prunedAtMs: row?.prunedAtMs ?? 0,
    archivedAtMs: row?.archivedAtMs ?? marker.archivedAtMs,
    logsUrl,
  };
}
