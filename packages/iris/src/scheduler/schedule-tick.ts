import { DEFAULT_MAX_ASSIGNMENTS_PER_WORKER, DEFAULT_MAX_BUILDING_TASKS, TickCapacity } from './capacity.js';
import { ConstraintIndex } from './constraint-index.js';
import { type Diagnosis, diagnoseGang, diagnoseSingle } from './diagnostics.js';
import { type GroupedCandidates, groupCandidates } from './gang-groups.js';
import { gangShape, placeGang } from './gang-placement.js';
import { CandidateCache, type JobCandidates } from './job-candidates.js';
import { planPreemptions } from './preemption.js';
import type { PreemptorQueue } from './preemption.js';
import { bandRank, PRIORITY_BANDS } from './priority-band.js';
import type { PriorityBand } from './priority-band.js';
import { compareJobs, interleave, userLanes } from './queue-order.js';
import { ShapeMemo } from './shape-memo.js';
import type {
  Assignment,
  Constraint,
  Coscheduling,
  PendingJobDiagnostic,
  ResourceAmounts,
  SchedulerJob,
  SchedulerTask,
  SchedulerTaskState,
  SchedulingInput,
  SchedulingResult,
} from './types.js';

const TERMINAL: ReadonlySet<SchedulerTaskState> = new Set<SchedulerTaskState>([
  'SUCCEEDED',
  'FAILED',
  'KILLED',
  'WORKER_FAILED',
  'UNSCHEDULABLE',
  'PREEMPTED',
  'COSCHED_FAILED',
]);

/** Tasks of one job sorted out for this tick. */
interface JobQueue {
  readonly job: SchedulerJob;
  /**
   * The fields of the job the tick reads, copied once. Jobs come in many object shapes (optional
   * fields spread in or left out, objects built by spreading), and a read from an object of an
   * unfamiliar shape is slow; the queue records all have one.
   */
  readonly jobId: string;
  readonly resources: ResourceAmounts;
  readonly constraints: readonly Constraint[];
  readonly reservationScope: string | undefined;
  readonly taskCount: number | undefined;
  readonly deviceKey: string;
  /** The job's band (`INTERACTIVE` when unset) and its rank, read once. */
  readonly band: PriorityBand;
  readonly bandRank: number;
  /** The job's other queue keys. */
  readonly depth: number;
  readonly root: number;
  readonly submitted: number;
  readonly seq: number;
  /** The job's user (`''` when unset), why it is blocked (if it is), and its gang shape, read once. */
  readonly user: string;
  readonly blockedReason: string | undefined;
  readonly coscheduling: Coscheduling | null;
  /** PENDING, no live attempt, deadline not passed; sorted by task index once built. */
  readonly placeable: SchedulerTask[];
  /** How many of `placeable` were placed this tick; always a prefix (gangs: all or none). */
  placedCount: number;
  /** Candidate set, looked up once per job. */
  candidates?: JobCandidates;
  /** Placement search state of the job's (constraints, shape) pair, looked up once per job. */
  search?: ShapeSearch;
  /** Non-terminal tasks that cannot be placed now (live attempts). */
  waitingOn: number;
  /** Tasks whose deadline passed this tick. */
  expired: number;
  /** PENDING tasks whose previous attempt is still live (being stopped). */
  readonly stopping: SchedulerTask[];
  /** Highest task index seen + 1, the task count when the job does not say. */
  indexBound: number;
}

/** Where the worker search of one (constraints, shape) pair stands this tick. */
interface ShapeSearch {
  /** Nothing fits it any more this tick. */
  hopeless: boolean;
  /** One cursor per score tier and assignment level (see `pickWorker`); sized on first use. */
  cursors: Int32Array | undefined;
  /** The pair's pending reason after placement, computed once (single-task jobs). */
  diagnosis: Diagnosis | undefined;
}

function newShapeSearch(): ShapeSearch {
  return { hopeless: false, cursors: undefined, diagnosis: undefined };
}

/** How much of a pass to run. */
export interface ScheduleTickOptions {
  /**
   * Only place: skip the pending-job diagnostics and preemption planning, and return both empty.
   * The autoscaler's dry run needs nothing else. @default false
   */
  readonly placementsOnly?: boolean;
}

/**
 * Runs one scheduling pass over a snapshot: drops tasks that are terminal or still have a
 * live attempt, expires scheduling deadlines, orders the queue, places coscheduled jobs
 * all or nothing and then single tasks first-fit without head-of-line blocking,
 * honouring taints, and explains every job left pending.
 *
 * Pure: the input is not modified and the same input gives the same result.
 *
 * @example
 * const result = scheduleTick({ nowMs: Date.now(), workers, jobs, tasks });
 * for (const a of result.assignments) commitAttempt(a.taskId, a.workerId);
 */
export function scheduleTick(input: SchedulingInput, options: ScheduleTickOptions = {}): SchedulingResult {
  const workers = input.workers;
  const index = new ConstraintIndex(workers);
  const cache = new CandidateCache(index);
  const capacity = new TickCapacity(
    workers,
    input.limits?.maxBuildingTasks ?? DEFAULT_MAX_BUILDING_TASKS,
    input.limits?.maxAssignmentsPerWorker ?? DEFAULT_MAX_ASSIGNMENTS_PER_WORKER,
  );

  const queues = new Map<string, JobQueue>();
  for (const job of input.jobs) {
    const jobId = job.jobId;
    const band = job.band ?? 'INTERACTIVE';
    queues.set(jobId, {
      job,
      jobId,
      resources: job.resources,
      constraints: job.constraints,
      reservationScope: job.reservationScope,
      taskCount: job.taskCount,
      deviceKey: job.deviceKey ?? '',
      band,
      bandRank: bandRank(band),
      depth: job.depth,
      root: job.rootSubmittedAtMs,
      submitted: job.submittedAtMs,
      seq: job.insertionSeq,
      user: job.user ?? '',
      blockedReason: job.blockedReason,
      coscheduling: job.coscheduling,
      placeable: [],
      placedCount: 0,
      candidates: undefined,
      search: undefined,
      waitingOn: 0,
      expired: 0,
      stopping: [],
      indexBound: 0,
    });
  }
  const expiredTaskIds: string[] = [];
  for (const task of input.tasks) {
    const queue = queues.get(task.jobId);
    if (queue === undefined) continue;
    queue.indexBound = Math.max(queue.indexBound, task.taskIndex + 1);
    if (TERMINAL.has(task.state)) continue;
    if (task.state !== 'PENDING' || task.hasLiveAttempt === true) {
      queue.waitingOn += 1;
      if (task.state === 'PENDING') queue.stopping.push(task);
      continue;
    }
    const deadline = task.schedulingDeadlineMs;
    if (deadline !== undefined && deadline !== null && input.nowMs >= deadline) {
      expiredTaskIds.push(task.taskId);
      queue.expired += 1;
      continue;
    }
    queue.placeable.push(task);
  }

  const ordered = sortQueues([...queues.values()].filter((q) => q.placeable.length > 0 || q.stopping.length > 0));
  for (const q of ordered) sortByTaskIndex(q.placeable);

  const assignments: Assignment[] = [];
  const candidatesOf = (q: JobQueue): JobCandidates => (q.candidates ??= cache.get(q.constraints, q.reservationScope));
  // Groups depend only on the candidate set and the attribute, not on capacity, so gangs sharing
  // constraints share one grouping per tick.
  const groupings = new Map<JobCandidates, Map<string, GroupedCandidates>>();
  const groupsOf = (q: JobQueue, groupBy: string): GroupedCandidates => {
    const candidates = candidatesOf(q);
    let byKey = groupings.get(candidates);
    if (byKey === undefined) groupings.set(candidates, (byKey = new Map()));
    let grouped = byKey.get(groupBy);
    if (grouped === undefined) byKey.set(groupBy, (grouped = groupCandidates(workers, candidates, groupBy)));
    return grouped;
  };

  // A (constraints, shape) pair that fit nowhere keeps failing for the rest of the tick, because
  // free capacity only shrinks and counts only grow; remembering it keeps big queues cheap. The
  // search state of a pair is looked up once per job, not once per task.
  const searches = new ShapeMemo(newShapeSearch);
  const searchOf = (q: JobQueue): ShapeSearch => (q.search ??= searches.get(candidatesOf(q), q.resources));
  /** Places the next task of a single-task job; false when the job is exhausted for this pass. */
  const placeNext = (q: JobQueue): boolean => {
    const task = q.placeable[q.placedCount];
    if (task === undefined) return false;
    const search = searchOf(q);
    if (search.hopeless) return false;
    const candidates = candidatesOf(q);
    const cursors = (search.cursors ??= new Int32Array(Math.max(0, candidates.tiers.length - 1) * capacity.maxAssignments));
    const worker = pickWorker(candidates, q.resources, capacity, cursors);
    if (worker < 0) {
      // No head-of-line blocking: this job is exhausted for the pass, later jobs still place.
      search.hopeless = true;
      return false;
    }
    capacity.deduct(worker, q.resources);
    assignments.push({ taskId: task.taskId, jobId: q.jobId, workerId: workers[worker]?.workerId ?? '', band: q.band });
    q.placedCount += 1;
    return true;
  };

  // Band by band: gangs first, then single tasks; within a band users take turns by ascending spend.
  // One pass splits the queue (already in band order) by band and kind, keeping the order.
  const gangsByBand: JobQueue[][] = PRIORITY_BANDS.map(() => []);
  const singlesByBand: JobQueue[][] = PRIORITY_BANDS.map(() => []);
  for (const q of ordered) {
    if (q.blockedReason !== undefined) continue;
    (q.coscheduling === null ? singlesByBand : gangsByBand)[q.bandRank - 1]?.push(q);
  }
  for (let b = 0; b < PRIORITY_BANDS.length; b++) {
    const gangs = gangsByBand[b] ?? [];
    const singles = singlesByBand[b] ?? [];
    for (const q of interleave(userLanes(gangs, userOf, input.userSpend))) {
      const cosched = q.coscheduling;
      if (cosched === null || q.waitingOn > 0 || q.expired > 0) continue;
      const { groups } = groupsOf(q, cosched.groupBy);
      const shape = gangShape(cosched, q.placeable, q.taskCount ?? q.indexBound);
      const placed = placeGang(q, shape, groups, workers, capacity);
      if (placed === null) continue;
      assignments.push(...placed);
      q.placedCount = q.placeable.length;
    }
    // One task per user lane in turn; a lane moves to its user's next job when one is exhausted.
    let lanes = userLanes(singles, userOf, input.userSpend).map((jobs) => ({ jobs, at: 0 }));
    if (lanes.length === 1) {
      // One user: its jobs in queue order, each placed until exhausted (the same order, without turns).
      const lane = lanes[0] as { jobs: JobQueue[]; at: number };
      for (const q of lane.jobs) while (placeNext(q));
      lanes = [];
    }
    while (lanes.length > 0) {
      let exhausted = false;
      for (const lane of lanes) {
        while (lane.at < lane.jobs.length && !placeNext(lane.jobs[lane.at] as JobQueue)) lane.at += 1;
        if (lane.at >= lane.jobs.length) exhausted = true;
      }
      if (exhausted) lanes = lanes.filter((lane) => lane.at < lane.jobs.length);
    }
  }

  if (options.placementsOnly === true) return { assignments, expiredTaskIds, pendingJobs: [], preemptions: [] };

  const pendingJobs: PendingJobDiagnostic[] = [];
  for (const q of ordered) {
    const first = q.placeable[q.placedCount];
    if (first === undefined) {
      // Only tasks whose previous attempt is still being stopped: pending, but not placeable yet.
      const stopping = [...q.stopping].sort((a, b) => a.taskIndex - b.taskIndex)[0];
      if (stopping !== undefined && q.expired === 0) {
        pendingJobs.push({
          jobId: q.jobId,
          taskId: stopping.taskId,
          reason: `waiting for ${q.stopping.length} previous attempt(s) to stop before placing again`,
          canBeScheduled: true,
        });
      }
      continue;
    }
    if (q.blockedReason !== undefined) {
      pendingJobs.push({ jobId: q.jobId, taskId: first.taskId, reason: q.blockedReason, canBeScheduled: true });
      continue;
    }
    const candidates = candidatesOf(q);
    const cosched = q.coscheduling;
    const diagnosis =
      cosched === null ? (searchOf(q).diagnosis ??= diagnoseSingle(index, candidates, q, capacity)) : diagnoseGangJob(q, cosched);
    pendingJobs.push({ jobId: q.jobId, taskId: first.taskId, reason: diagnosis.reason, canBeScheduled: diagnosis.canBeScheduled });
  }

  function diagnoseGangJob(q: JobQueue, cosched: Coscheduling): Diagnosis {
    const candidates = candidatesOf(q);
    const { groups, taintSkipped } = groupsOf(q, cosched.groupBy);
    const pending = q.placeable.slice(q.placedCount);
    const shape = gangShape(cosched, pending, q.taskCount ?? q.indexBound);
    return diagnoseGang(
      index,
      candidates,
      { job: q, groupBy: cosched.groupBy, shape, groups, taintSkipped, waitingOn: q.waitingOn + q.expired },
      capacity,
    );
  }

  const running = input.running ?? [];
  // Nothing to evict: the preemption pass has no work, so its queue is not even built.
  if (running.length === 0) return { assignments, expiredTaskIds, pendingJobs, preemptions: [] };
  const preemptors: PreemptorQueue[] = [];
  for (const q of ordered) {
    if (q.band === 'BATCH' || q.blockedReason !== undefined || q.placedCount >= q.placeable.length) continue;
    const pending = q.placeable.slice(q.placedCount);
    const cosched = q.coscheduling;
    if (cosched === null) {
      preemptors.push({ jobId: q.jobId, band: q.band, resources: q.resources, deviceKey: q.deviceKey, pending, candidates: candidatesOf(q) });
    } else if (q.waitingOn === 0 && q.expired === 0) {
      const shape = gangShape(cosched, pending, q.taskCount ?? q.indexBound);
      const gang = { groups: groupsOf(q, cosched.groupBy).groups, shape };
      preemptors.push({ jobId: q.jobId, band: q.band, resources: q.resources, deviceKey: q.deviceKey, pending, candidates: candidatesOf(q), gang });
    }
  }
  const preemptions = planPreemptions(preemptors, running, workers, capacity);

  return { assignments, expiredTaskIds, pendingJobs, preemptions };
}

/**
 * The queues in {@link compareJobs} order, sorted in place. The keys were copied into each queue
 * when it was made, so the sort compares numbers of one object shape instead of reading every
 * job's fields (objects of many shapes) at each of its n log n comparisons.
 */
function sortQueues(queues: JobQueue[]): JobQueue[] {
  return queues.sort(
    (a, b) =>
      a.bandRank - b.bandRank ||
      b.depth - a.depth ||
      a.root - b.root ||
      a.submitted - b.submitted ||
      a.seq - b.seq ||
      compareJobs(a.job, b.job),
  );
}

function userOf(q: JobQueue): string {
  return q.user;
}

/** Sorts tasks by index in place; tasks usually arrive in order, so check that first. */
export function sortByTaskIndex(tasks: SchedulerTask[]): void {
  for (let i = 1; i < tasks.length; i++) {
    if ((tasks[i - 1] as SchedulerTask).taskIndex > (tasks[i] as SchedulerTask).taskIndex) {
      tasks.sort((a, b) => a.taskIndex - b.taskIndex);
      return;
    }
  }
}

/**
 * The first candidate, by PREFERRED score descending, assignments this tick ascending, then
 * registration order, that fits and is under the per-tick cap; -1 when none does.
 *
 * `cursors` (one per score tier and assignment level, kept per constraints-and-shape pair for the
 * tick) make this amortised linear: a worker passed over at level `L` for a shape either has more
 * than `L` assignments or does not fit it, and both stay true for the rest of the tick, so the
 * cursor never has to look at it again.
 */
function pickWorker(candidates: JobCandidates, need: ResourceAmounts, capacity: TickCapacity, cursors: Int32Array): number {
  const { order, tiers } = candidates;
  const assigned = capacity.assigned;
  const cap = capacity.maxAssignments;
  for (let t = 0; t + 1 < tiers.length; t++) {
    const end = tiers[t + 1] as number;
    for (let level = 0; level < cap; level++) {
      const slot = t * cap + level;
      let p = Math.max(cursors[slot] as number, tiers[t] as number);
      while (p < end) {
        const i = order[p] as number;
        if ((assigned[i] as number) <= level && capacity.fits(i, need)) break;
        p += 1;
      }
      cursors[slot] = p;
      if (p < end) return order[p] as number;
    }
  }
  return -1;
}
