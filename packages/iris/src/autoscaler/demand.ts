import { equalityKey, isRequired } from '../scheduler/constraint-match.js';
import type { PriorityBand } from '../scheduler/priority-band.js';
import { scheduleTick } from '../scheduler/schedule-tick.js';
import type { Constraint, ResourceAmounts, SchedulerTask, SchedulingInput } from '../scheduler/types.js';

/** One unit of work the current workers cannot hold: a whole gang, or one other task. */
export interface DemandEntry {
  readonly jobId: string;
  /** One task, or every member of the gang. */
  readonly taskIds: readonly string[];
  /** What each task needs on its VM. */
  readonly resources: ResourceAmounts;
  /** The job's REQUIRED constraints; routing matches them against a group's worker template. */
  readonly constraints: readonly Constraint[];
  /** Gang shape, or `null` for a single task. */
  readonly gang: { readonly groupBy: string; readonly size: number } | null;
  readonly band: PriorityBand;
  /** Set when the constraints contradict each other, so no group could ever hold the entry. */
  readonly invalidReason?: string;
}

/**
 * Demand from a scheduler dry run: the same `scheduleTick` the controller runs, with the building and
 * per-tick assignment caps off and preemption off, over the current workers. Tasks the dry run
 * places need no new capacity; the rest become one entry per gang (`tasksPerGroup` members, or all
 * pending members when it is 0) and one per other task. Jobs blocked for another reason
 * (reservations not yet claimed) and tasks whose previous attempt is still live emit nothing.
 */
export function computeDemand(input: SchedulingInput): DemandEntry[] {
  // "Off" is a finite cap no worker can reach (the kernel sizes arrays by it).
  const cap = input.tasks.length + 1;
  const dry = scheduleTick({ ...input, limits: { maxBuildingTasks: cap, maxAssignmentsPerWorker: cap }, running: [] });
  const placed = new Set(dry.assignments.map((a) => a.taskId));
  const byJob = new Map<string, SchedulerTask[]>();
  for (const t of input.tasks) {
    if (t.state !== 'PENDING' || t.hasLiveAttempt || placed.has(t.taskId)) continue;
    if (t.schedulingDeadlineMs !== undefined && t.schedulingDeadlineMs !== null && t.schedulingDeadlineMs <= input.nowMs) continue;
    let list = byJob.get(t.jobId);
    if (!list) byJob.set(t.jobId, (list = []));
    list.push(t);
  }
  const out: DemandEntry[] = [];
  for (const job of input.jobs) {
    const tasks = byJob.get(job.jobId);
    if (!tasks || job.blockedReason !== undefined) continue;
    tasks.sort((a, b) => a.taskIndex - b.taskIndex);
    const constraints = job.constraints.filter(isRequired);
    const invalidReason = constraintConflict(constraints);
    const base = { jobId: job.jobId, resources: job.resources, constraints, band: job.band ?? 'INTERACTIVE', ...(invalidReason ? { invalidReason } : {}) };
    const cosched = job.coscheduling;
    if (cosched === null) {
      for (const t of tasks) out.push({ ...base, taskIds: [t.taskId], gang: null });
      continue;
    }
    const size = cosched.tasksPerGroup > 0 ? cosched.tasksPerGroup : tasks.length;
    const groups = new Map<number, string[]>();
    for (const t of tasks) {
      const g = cosched.tasksPerGroup > 0 ? Math.floor(t.taskIndex / size) : 0;
      let ids = groups.get(g);
      if (!ids) groups.set(g, (ids = []));
      ids.push(t.taskId);
    }
    for (const ids of groups.values()) out.push({ ...base, taskIds: ids, gang: { groupBy: cosched.groupBy, size } });
  }
  return out;
}

/**
 * Why a set of REQUIRED constraints can never hold together, or `undefined`: two `EQ`/`IN` on one
 * key with no common value (`region EQ us-east1` and `region EQ europe-west4`), or a value required
 * on a key that must not exist.
 */
export function constraintConflict(constraints: readonly Constraint[]): string | undefined {
  const allowed = new Map<string, Set<string>>();
  const absent = new Set<string>();
  for (const c of constraints) {
    if (c.op === 'NOT_EXISTS') absent.add(c.key);
    if (c.op !== 'EQ' && c.op !== 'IN') continue;
    const values = new Set((c.op === 'EQ' ? [c.value ?? ''] : (c.values ?? [])).map(equalityKey));
    const prev = allowed.get(c.key);
    const next = prev ? new Set([...prev].filter((v) => values.has(v))) : values;
    if (next.size === 0) return `conflicting constraints on "${c.key}": no value satisfies all of them`;
    allowed.set(c.key, next);
  }
  for (const key of absent) if (allowed.has(key)) return `conflicting constraints on "${key}": required to exist and not to exist`;
  return undefined;
}
