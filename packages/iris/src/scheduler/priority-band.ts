import type { ResourceAmounts } from './types.js';

/** Scheduling bands, best first. A band only ever preempts a worse one, never its own. */
export type PriorityBand = 'PRODUCTION' | 'INTERACTIVE' | 'BATCH';

/** Bands in queue order. */
export const PRIORITY_BANDS: readonly PriorityBand[] = ['PRODUCTION', 'INTERACTIVE', 'BATCH'];

const RANK: Readonly<Record<PriorityBand, number>> = { PRODUCTION: 1, INTERACTIVE: 2, BATCH: 3 };

/** 1 for PRODUCTION, 2 for INTERACTIVE, 3 for BATCH: lower goes first. */
export function bandRank(band: PriorityBand): number {
  return RANK[band];
}

/** True when a task in band `preemptor` may evict one in band `victim`: strictly better, and never from BATCH. */
export function mayPreempt(preemptor: PriorityBand, victim: PriorityBand): boolean {
  return preemptor !== 'BATCH' && RANK[preemptor] < RANK[victim];
}

const GIB = 2 ** 30;

/**
 * What one task costs against its user's budget: `1000 · accelerators + RAM GiB + 5 · CPU cores`,
 * each term rounded down, so a TPU VM's chips dominate and small CPU tasks are cheap.
 */
export function resourceValue(r: ResourceAmounts): number {
  return 1000 * (r.gpuCount + r.tpuChips) + Math.floor(r.memoryBytes / GIB) + 5 * Math.floor(r.cpuMillicores / 1000);
}

/** A user's scheduling limits. */
export interface UserBudgetLimits {
  /** Spend above which the user's INTERACTIVE work runs as BATCH; 0 = unlimited. */
  readonly budgetLimit: number;
  /** The best band the user may run in; better requests are capped to it. */
  readonly maxBand: PriorityBand;
}

/**
 * The band a task of `user` is scheduled (or judged as a victim) in: the requested band capped at
 * the user's `maxBand`, then INTERACTIVE demoted to BATCH while the user's spend exceeds a
 * non-zero budget. PRODUCTION is never demoted by spend.
 */
export function effectiveBand(requested: PriorityBand, limits: UserBudgetLimits | undefined, spend: number): PriorityBand {
  if (limits === undefined) return requested;
  let band = RANK[requested] < RANK[limits.maxBand] ? limits.maxBand : requested;
  if (band === 'INTERACTIVE' && limits.budgetLimit > 0 && spend > limits.budgetLimit) band = 'BATCH';
  return band;
}

/** One live task as budgets see it: its user, the band stamped at assignment, what it holds. */
export interface SpendingTask {
  readonly user: string;
  readonly band: PriorityBand;
  readonly resources: ResourceAmounts;
}

/** Spend per user: the summed {@link resourceValue} of their live tasks outside the BATCH band. */
export function userSpend(tasks: Iterable<SpendingTask>): Map<string, number> {
  const spend = new Map<string, number>();
  for (const t of tasks) {
    if (t.band === 'BATCH') continue;
    spend.set(t.user, (spend.get(t.user) ?? 0) + resourceValue(t.resources));
  }
  return spend;
}
