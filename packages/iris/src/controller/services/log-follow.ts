import { IrisError } from '../../errors.js';
import type { FollowLogsResponse, LogQuery } from '../../gen/iris/v1/controller.js';
import { JobState } from '../../gen/iris/v1/types.js';
import type { ControllerState } from '../controller-state.js';
import { queryLogs } from '../log-archiver.js';
import { findPrunedJob } from '../pruned-job.js';
import { parseTaskId } from '../../core/job-names.js';

/** How long a follower sleeps when no job change wakes it first. */
const FOLLOW_POLL_MS = 1000;

/** Options of {@link followLogEvents}. */
export interface FollowLogOptions {
  /** True once shutdown began: the follow ends with IRIS_UNAVAILABLE. */
  readonly isClosing: () => boolean;
  /** Ends the follow quietly (the caller went away). */
  readonly signal: AbortSignal;
}

/**
 * Follows a job's (or one task's) logs: yields each new page and every job state change, woken by
 * the controller's job notifications (new log lines included) with a slow poll as a fallback, and a
 * final `done: true` event once the job (and, by default, its descendants) is terminal. Both the
 * gRPC `FollowLogs` stream and the dashboard's server-sent events are fed from here; the consumer's
 * pace is the backpressure (the next page is read only when it asks for it). A job pruned from the
 * database whose logs are archived is followed as an ended job: its archived lines, then `done`
 * with the state it ended in.
 * @throws {IrisError} IRIS_JOB_NOT_FOUND for an unknown job (neither in the database nor archived); IRIS_UNAVAILABLE when the controller shuts down.
 */
export async function* followLogEvents(state: ControllerState, q: LogQuery, options: FollowLogOptions): AsyncGenerator<FollowLogsResponse> {
  const { signal } = options;
  const jobId = q.taskId !== '' ? parseTaskId(q.taskId).jobId : q.jobId;
  const includeChildren = q.taskId === '' && (q.includeChildren ?? true);
  // A pruned job is followed like any ended one: its archived lines, then done with the state it ended in.
  const pruned = state.store.job(jobId) === undefined ? await findPrunedJob(state, jobId) : undefined;
  if (!state.store.job(jobId) && pruned === undefined) throw new IrisError('IRIS_JOB_NOT_FOUND', `job "${jobId}" not found`);
  let wake: (() => void) | undefined;
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  const unsubscribe = state.onJobsChanged((ids) => {
    for (const id of ids) if (id === jobId || (includeChildren && id.startsWith(`${jobId}/`))) wake?.();
  });
  try {
    let cursor = q.cursor;
    let first = true;
    let lastState = JobState.JOB_STATE_UNSPECIFIED;
    while (!signal.aborted) {
      if (options.isClosing()) throw new IrisError('IRIS_UNAVAILABLE', 'controller is shutting down');
      const terminal = !state.store.job(jobId) || state.isTreeTerminal(jobId, includeChildren);
      const page = await queryLogs(state, { ...q, cursor, tail: first && q.tail });
      first = false;
      cursor = page.cursor;
      const jobState = state.store.job(jobId)?.state ?? pruned?.state ?? JobState.JOB_STATE_UNSPECIFIED;
      if (page.entries.length > 0 || jobState !== lastState) {
        lastState = jobState;
        yield { entries: page.entries, jobState, done: false, cursor };
      }
      if (page.truncated) continue;
      if (terminal) {
        yield { entries: [], jobState, done: true, cursor };
        return;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, FOLLOW_POLL_MS);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
        if (signal.aborted) wake();
      });
      wake = undefined;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    unsubscribe();
  }
}
