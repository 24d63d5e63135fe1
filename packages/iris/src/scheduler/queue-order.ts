import type { SchedulerJob } from './types.js';

/**
 * Queue order of §8.2 between two jobs: deeper first, then older trees (`rootSubmittedAtMs`), then
 * `submittedAtMs`, then insertion sequence. Tasks of one job follow by task index.
 */
export function compareJobs(a: SchedulerJob, b: SchedulerJob): number {
  return (
    b.depth - a.depth ||
    a.rootSubmittedAtMs - b.rootSubmittedAtMs ||
    a.submittedAtMs - b.submittedAtMs ||
    a.insertionSeq - b.insertionSeq ||
    (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0)
  );
}
