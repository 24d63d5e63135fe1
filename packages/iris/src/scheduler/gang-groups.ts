import { numericValue } from '../core/constraint-match.js';
import type { JobCandidates } from './job-candidates.js';
import type { SchedulerWorker } from './types.js';

/** Candidate workers of one job sharing one `groupBy` value (a TPU slice, a GPU pool). */
export interface CandidateGroup {
  /** The shared attribute value. */
  readonly value: string;
  /** Candidate worker indexes, by `tpu-worker-id` (numeric), then worker id. */
  readonly members: readonly number[];
  /** Summed PREFERRED score of the members. */
  readonly score: number;
}

/** The groups a gang may use, plus how many were skipped because a member is tainted for the job. */
export interface GroupedCandidates {
  /** Ranked by summed PREFERRED score descending, then group value. */
  readonly groups: readonly CandidateGroup[];
  readonly taintSkipped: number;
}

function byTpuWorkerId(workers: readonly SchedulerWorker[]): (a: number, b: number) => number {
  const rank = (i: number): number => {
    const v = workers[i]?.attributes['tpu-worker-id'];
    const n = v === undefined ? undefined : numericValue(v);
    return n ?? Number.POSITIVE_INFINITY;
  };
  return (a, b) => {
    const d = rank(a) - rank(b);
    if (d !== 0 && !Number.isNaN(d)) return d;
    const ia = workers[a]?.workerId ?? '';
    const ib = workers[b]?.workerId ?? '';
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  };
}

/**
 * Groups a job's candidates by their `groupBy` attribute. Workers without the attribute cannot be
 * in a gang; a group with any healthy worker tainted for this job is skipped as a whole.
 */
export function groupCandidates(
  workers: readonly SchedulerWorker[],
  candidates: JobCandidates,
  groupBy: string,
): GroupedCandidates {
  const tainted = new Set<string>();
  const byValue = new Map<string, number[]>();
  for (let i = 0; i < workers.length; i++) {
    const raw = workers[i]?.attributes[groupBy];
    if (raw === undefined) continue;
    const value = String(raw);
    if (candidates.taintExcluded[i] === 1) tainted.add(value);
    if (candidates.mask[i] !== 1) continue;
    let members = byValue.get(value);
    if (members === undefined) byValue.set(value, (members = []));
    members.push(i);
  }
  const compare = byTpuWorkerId(workers);
  const groups: CandidateGroup[] = [];
  let taintSkipped = 0;
  for (const [value, members] of byValue) {
    if (tainted.has(value)) {
      taintSkipped += 1;
      continue;
    }
    members.sort(compare);
    let score = 0;
    for (const i of members) score += candidates.score[i] as number;
    groups.push({ value, members, score });
  }
  groups.sort((a, b) => b.score - a.score || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return { groups, taintSkipped };
}
