import { bandRank } from './priority-band.js';
import type { SchedulerJob } from './types.js';

/**
 * Queue order between two jobs: band first (PRODUCTION, INTERACTIVE, BATCH), then deeper first,
 * then older trees (`rootSubmittedAtMs`), then `submittedAtMs`, then insertion sequence. Tasks of
 * one job follow by task index. Within a band, users are interleaved by {@link userLanes}.
 */
export function compareJobs(a: SchedulerJob, b: SchedulerJob): number {
  return (
    bandRank(a.band ?? 'INTERACTIVE') - bandRank(b.band ?? 'INTERACTIVE') ||
    b.depth - a.depth ||
    a.rootSubmittedAtMs - b.rootSubmittedAtMs ||
    a.submittedAtMs - b.submittedAtMs ||
    a.insertionSeq - b.insertionSeq ||
    (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0)
  );
}

/**
 * Splits one band's queue (already in {@link compareJobs} order) into one lane per user, lanes
 * ordered by ascending spend, then user name. Placement takes one task from each lane in turn, so
 * a user with a long queue cannot starve the others and the user spending least goes first.
 *
 * @param userOf the submitting user of an item (`SchedulerJob.user`, `''` when unset)
 */
export function userLanes<TItem>(items: readonly TItem[], userOf: (item: TItem) => string, spend: ReadonlyMap<string, number> | undefined): TItem[][] {
  const lanes = new Map<string, TItem[]>();
  for (const item of items) {
    const user = userOf(item);
    let lane = lanes.get(user);
    if (lane === undefined) lanes.set(user, (lane = []));
    lane.push(item);
  }
  const spendOf = (user: string): number => spend?.get(user) ?? 0;
  return [...lanes.entries()].sort(([a], [b]) => spendOf(a) - spendOf(b) || (a < b ? -1 : a > b ? 1 : 0)).map(([, lane]) => lane);
}

/** Lanes merged one item at a time (first of each lane, then second of each, …). */
export function interleave<TItem>(lanes: readonly (readonly TItem[])[]): TItem[] {
  const out: TItem[] = [];
  const longest = lanes.reduce((n, l) => Math.max(n, l.length), 0);
  for (let i = 0; i < longest; i++) for (const lane of lanes) if (i < lane.length) out.push(lane[i] as TItem);
  return out;
}
