import type { TickCapacity } from './capacity.js';
import type { CandidateGroup } from './gang-groups.js';
import type { Assignment, Coscheduling, SchedulerJob, SchedulerTask, SchedulerWorker } from './types.js';

/** How a gang job's pending tasks split into slices: `k` tasks per group, one group per slice. */
export interface GangShape {
  /** Tasks per group. */
  readonly k: number;
  /** Pending tasks per slice index, each with its rank inside the slice. */
  readonly slices: ReadonlyMap<number, ReadonlyArray<{ readonly task: SchedulerTask; readonly rank: number }>>;
  /** Slices the whole job spans (for `GangPlacement.sliceCount`). */
  readonly sliceCount: number;
}

/**
 * Splits a gang's pending tasks (sorted by index) into slices: task `i` goes to slice
 * `floor(i / k)` with rank `i mod k`; `tasksPerGroup = 0` puts every pending task in slice 0.
 */
export function gangShape(coscheduling: Coscheduling, pending: readonly SchedulerTask[], taskCount: number): GangShape {
  const slices = new Map<number, Array<{ task: SchedulerTask; rank: number }>>();
  if (coscheduling.tasksPerGroup <= 0) {
    slices.set(0, pending.map((task, rank) => ({ task, rank })));
    return { k: pending.length, slices, sliceCount: 1 };
  }
  const k = coscheduling.tasksPerGroup;
  for (const task of pending) {
    const slice = Math.floor(task.taskIndex / k);
    let members = slices.get(slice);
    if (members === undefined) slices.set(slice, (members = []));
    members.push({ task, rank: task.taskIndex % k });
  }
  return { k, slices, sliceCount: Math.max(1, Math.ceil(taskCount / k)) };
}

/**
 * Members of `group` that can take one task of `job` now (capacity and building limit, plus the
 * per-tick assignment cap unless `ignoreTickCap`).
 */
export function fittingMembers(group: CandidateGroup, job: Pick<SchedulerJob, 'resources'>, capacity: TickCapacity, ignoreTickCap = false): number[] {
  const need = job.resources;
  return group.members.filter((i) => (ignoreTickCap || capacity.underTickCap(i)) && capacity.fits(i, need));
}

/**
 * Places a gang all or nothing: picks one distinct group per slice, each with at least `k` members
 * that fit individually, in ranked group order; within a group the first `k` fitting members by
 * `tpu-worker-id` take ranks `0..k-1`. Deducts capacity only when every slice found a group.
 *
 * @returns the assignments, or `null` when fewer groups than slices are available (nothing deducted)
 */
export function placeGang(
  job: Pick<SchedulerJob, 'jobId' | 'band' | 'resources'>,
  shape: GangShape,
  groups: readonly CandidateGroup[],
  workers: readonly SchedulerWorker[],
  capacity: TickCapacity,
): Assignment[] | null {
  const need = job.resources;
  const needed = [...shape.slices.keys()].sort((a, b) => a - b);
  if (needed.length === 0 || shape.k === 0) return null;
  const chosen: Array<{ group: CandidateGroup; members: number[] }> = [];
  for (const group of groups) {
    if (group.members.length < shape.k) continue;
    const fitting = fittingMembers(group, job, capacity);
    if (fitting.length >= shape.k) chosen.push({ group, members: fitting.slice(0, shape.k) });
    if (chosen.length === needed.length) break;
  }
  if (chosen.length < needed.length) return null;

  const assignments: Assignment[] = [];
  needed.forEach((sliceIndex, j) => {
    const pick = chosen[j];
    const members = shape.slices.get(sliceIndex) ?? [];
    if (pick === undefined) return;
    const peerWorkerIds = pick.members.map((i) => workers[i]?.workerId ?? '');
    for (const { task, rank } of members) {
      const worker = pick.members[rank];
      if (worker === undefined) continue;
      capacity.deduct(worker, need);
      assignments.push({
        taskId: task.taskId,
        jobId: job.jobId,
        workerId: peerWorkerIds[rank] ?? '',
        band: job.band ?? 'INTERACTIVE',
        gang: {
          groupValue: pick.group.value,
          rank,
          groupSize: shape.k,
          sliceIndex,
          sliceCount: shape.sliceCount,
          peerWorkerIds,
        },
      });
    }
  });
  return assignments;
}
