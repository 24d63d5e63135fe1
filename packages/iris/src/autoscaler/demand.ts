import { equalityKey, isRequired } from '../core/constraint-match.js';
import type { PriorityBand } from '../scheduler/priority-band.js';
import { scheduleTick, sortByTaskIndex } from '../scheduler/schedule-tick.js';
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
  // "Off" is a finite cap no worker can reach (the kernel sizes arrays by it). Diagnostics and
  // preemption planning are skipped: demand reads only the assignments.
  const cap = input.tasks.length + 1;
  const dry = scheduleTick({ ...input, limits: { maxBuildingTasks: cap, maxAssignmentsPerWorker: cap }, running: [] }, { placementsOnly: true });
  const placed = new Set<string>();
  for (const a of dry.assignments) placed.add(a.taskId);
  const byJob = new Map<string, SchedulerTask[]>();
  for (const t of input.tasks) {
    if (t.state !== 'PENDING' || t.hasLiveAttempt || (placed.size > 0 && placed.has(t.taskId))) continue;
    if (t.schedulingDeadlineMs !== undefined && t.schedulingDeadlineMs !== null && t.schedulingDeadlineMs <= input.nowMs) continue;
    let list = byJob.get(t.jobId);
    if (!list) byJob.set(t.jobId, (list = []));
    list.push(t);
  }
  // Jobs often share one constraints array (or equal ones); check each distinct array once.
  const checked = new Map<readonly Constraint[], { constraints: readonly Constraint[]; invalidReason: string | undefined }>();
  const out: DemandEntry[] = [];
  for (const job of input.jobs) {
    const tasks = byJob.get(job.jobId);
    if (!tasks || job.blockedReason !== undefined) continue;
    sortByTaskIndex(tasks);
    let check = checked.get(job.constraints);
    if (check === undefined) {
      const required = job.constraints.filter(isRequired);
      check = { constraints: required, invalidReason: constraintConflict(required) };
      checked.set(job.constraints, check);
    }
    const { constraints, invalidReason } = check;
    const { jobId, resources } = job;
    const band = job.band ?? 'INTERACTIVE';
    const entry =
      invalidReason === undefined
        ? (taskIds: readonly string[], gang: DemandEntry['gang']): DemandEntry => ({ jobId, taskIds, resources, constraints, gang, band })
        : (taskIds: readonly string[], gang: DemandEntry['gang']): DemandEntry => ({ jobId, taskIds, resources, constraints, gang, band, invalidReason });
    const cosched = job.coscheduling;
    if (cosched === null) {
      for (const t of tasks) out.push(entry([t.taskId], null));
      continue;
    }
    const size = cosched.tasksPerGroup > 0 ? cosched.tasksPerGroup : tasks.length;
    const gang = { groupBy: cosched.groupBy, size };
    // Tasks are sorted by index, so each gang's members are one run.
    let ids: string[] = [];
    let current = -1;
    for (const t of tasks) {
      const g = cosched.tasksPerGroup > 0 ? Math.floor(t.taskIndex / size) : 0;
      if (g !== current && ids.length > 0) {
        out.push(entry(ids, gang));
        ids = [];
      }
      current = g;
      ids.push(t.taskId);
    }
    if (ids.length > 0) out.push(entry(ids, gang));
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
