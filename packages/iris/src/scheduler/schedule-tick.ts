import { DEFAULT_MAX_ASSIGNMENTS_PER_WORKER, DEFAULT_MAX_BUILDING_TASKS, TickCapacity } from './capacity.js';
import { ConstraintIndex } from './constraint-index.js';
import { type Diagnosis, diagnoseGang, diagnoseSingle } from './diagnostics.js';
import { type GroupedCandidates, groupCandidates } from './gang-groups.js';
import { gangShape, placeGang } from './gang-placement.js';
import { CandidateCache, type JobCandidates } from './job-candidates.js';
import { planPreemptions } from './preemption.js';
import type { PreemptorQueue } from './preemption.js';
import { bandRank, PRIORITY_BANDS } from './priority-band.js';
import { compareJobs, interleave, userLanes } from './queue-order.js';
import type {
  Assignment,
  Coscheduling,
  PendingJobDiagnostic,
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
  /** One cursor per score tier and assignment level (see `pickWorker`). */
  readonly cursors: Int32Array;
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
    queues.set(job.jobId, { job, placeable: [], placedCount: 0, waitingOn: 0, expired: 0, stopping: [], indexBound: 0 });
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
  const candidatesOf = (q: JobQueue): JobCandidates => (q.candidates ??= cache.get(q.job.constraints, q.job.reservationScope));
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
  const searches = new Map<string, ShapeSearch>();
  const searchOf = (q: JobQueue): ShapeSearch => {
    if (q.search !== undefined) return q.search;
    const candidates = candidatesOf(q);
    const need = q.job.resources;
    const key = `${candidates.signature}|${need.cpuMillicores}|${need.memoryBytes}|${need.gpuCount}|${need.tpuChips}`;
    let search = searches.get(key);
    if (search === undefined) {
      search = { hopeless: false, cursors: new Int32Array(Math.max(0, candidates.tiers.length - 1) * capacity.maxAssignments) };
      searches.set(key, search);
    }
    return (q.search = search);
  };
  /** Places the next task of a single-task job; false when the job is exhausted for this pass. */
  const placeNext = (q: JobQueue): boolean => {
    const task = q.placeable[q.placedCount];
    if (task === undefined) return false;
    const search = searchOf(q);
    if (search.hopeless) return false;
    const worker = pickWorker(candidatesOf(q), q.job, capacity, search.cursors);
    if (worker < 0) {
      // No head-of-line blocking: this job is exhausted for the pass, later jobs still place.
      search.hopeless = true;
      return false;
    }
    capacity.deduct(worker, q.job.resources);
    assignments.push({ taskId: task.taskId, jobId: q.job.jobId, workerId: workers[worker]?.workerId ?? '', band: q.job.band ?? 'INTERACTIVE' });
    q.placedCount += 1;
    return true;
  };

  // Band by band: gangs first, then single tasks; within a band users take turns by ascending spend.
  const placing = ordered.filter((q) => q.job.blockedReason === undefined);
  for (const band of PRIORITY_BANDS) {
    const inBand = placing.filter((q) => (q.job.band ?? 'INTERACTIVE') === band);
    if (inBand.length === 0) continue;
    const gangs = inBand.filter((q) => q.job.coscheduling !== null);
    for (const q of interleave(userLanes(gangs, (x) => x.job, input.userSpend))) {
      const cosched = q.job.coscheduling;
      if (cosched === null || q.waitingOn > 0 || q.expired > 0) continue;
      const { groups } = groupsOf(q, cosched.groupBy);
      const shape = gangShape(cosched, q.placeable, q.job.taskCount ?? q.indexBound);
      const placed = placeGang({ ...q.job, coscheduling: cosched }, shape, groups, workers, capacity);
      if (placed === null) continue;
      assignments.push(...placed);
      q.placedCount = q.placeable.length;
    }
    // One task per user lane in turn; a lane moves to its user's next job when one is exhausted.
    let lanes = userLanes(
      inBand.filter((q) => q.job.coscheduling === null),
      (x) => x.job,
      input.userSpend,
    ).map((jobs) => ({ jobs, at: 0 }));
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
  const diagnosisMemo = new Map<string, Diagnosis>();
  for (const q of ordered) {
    const first = q.placeable[q.placedCount];
    if (first === undefined) {
      // Only tasks whose previous attempt is still being stopped: pending, but not placeable yet.
      const stopping = [...q.stopping].sort((a, b) => a.taskIndex - b.taskIndex)[0];
      if (stopping !== undefined && q.expired === 0) {
        pendingJobs.push({
          jobId: q.job.jobId,
          taskId: stopping.taskId,
          reason: `waiting for ${q.stopping.length} previous attempt(s) to stop before placing again`,
          canBeScheduled: true,
        });
      }
      continue;
    }
    if (q.job.blockedReason !== undefined) {
      pendingJobs.push({ jobId: q.job.jobId, taskId: first.taskId, reason: q.job.blockedReason, canBeScheduled: true });
      continue;
    }
    const candidates = candidatesOf(q);
    const cosched = q.job.coscheduling;
    const diagnosis =
      cosched === null ? diagnoseSingleMemo(diagnosisMemo, index, candidates, q.job, capacity) : diagnoseGangJob(q, cosched);
    pendingJobs.push({ jobId: q.job.jobId, taskId: first.taskId, ...diagnosis });
  }

  function diagnoseGangJob(q: JobQueue, cosched: Coscheduling): Diagnosis {
    const candidates = candidatesOf(q);
    const { groups, taintSkipped } = groupsOf(q, cosched.groupBy);
    const pending = q.placeable.slice(q.placedCount);
    const shape = gangShape(cosched, pending, q.job.taskCount ?? q.indexBound);
    return diagnoseGang(
      index,
      candidates,
      { job: q.job, groupBy: cosched.groupBy, shape, groups, taintSkipped, waitingOn: q.waitingOn + q.expired },
      capacity,
    );
  }

  const running = input.running ?? [];
  // Nothing to evict: the preemption pass has no work, so its queue is not even built.
  if (running.length === 0) return { assignments, expiredTaskIds, pendingJobs, preemptions: [] };
  const preemptors: PreemptorQueue[] = [];
  for (const q of ordered) {
    const pending = q.placeable.slice(q.placedCount);
    if (pending.length === 0 || (q.job.band ?? 'INTERACTIVE') === 'BATCH' || q.job.blockedReason !== undefined) continue;
    const cosched = q.job.coscheduling;
    if (cosched === null) {
      preemptors.push({ job: q.job, pending, candidates: candidatesOf(q) });
    } else if (q.waitingOn === 0 && q.expired === 0) {
      const shape = gangShape(cosched, pending, q.job.taskCount ?? q.indexBound);
      preemptors.push({ job: q.job, pending, candidates: candidatesOf(q), gang: { groups: groupsOf(q, cosched.groupBy).groups, shape } });
    }
  }
  const preemptions = planPreemptions(preemptors, running, workers, capacity);

  return { assignments, expiredTaskIds, pendingJobs, preemptions };
}

/**
 * The queues in {@link compareJobs} order. The keys are read once per job into one flat record
 * each, so the sort compares numbers of one object shape instead of reading every job's fields
 * (objects of many shapes) at each of its n log n comparisons.
 */
function sortQueues(queues: JobQueue[]): JobQueue[] {
  const keyed = queues.map((q) => ({
    q,
    band: bandRank(q.job.band ?? 'INTERACTIVE'),
    depth: q.job.depth,
    root: q.job.rootSubmittedAtMs,
    submitted: q.job.submittedAtMs,
    seq: q.job.insertionSeq,
  }));
  keyed.sort(
    (a, b) =>
      a.band - b.band ||
      b.depth - a.depth ||
      a.root - b.root ||
      a.submitted - b.submitted ||
      a.seq - b.seq ||
      compareJobs(a.q.job, b.q.job),
  );
  return keyed.map((k) => k.q);
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

function diagnoseSingleMemo(
  memo: Map<string, Diagnosis>,
  index: ConstraintIndex,
  candidates: JobCandidates,
  job: SchedulerJob,
  capacity: TickCapacity,
): Diagnosis {
  const r = job.resources;
  const key = `${candidates.signature}|${r.cpuMillicores}|${r.memoryBytes}|${r.gpuCount}|${r.tpuChips}`;
  const cached = memo.get(key);
  if (cached !== undefined) return cached;
  const diagnosis = diagnoseSingle(index, candidates, job, capacity);
  memo.set(key, diagnosis);
  return diagnosis;
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
function pickWorker(candidates: JobCandidates, job: SchedulerJob, capacity: TickCapacity, cursors: Int32Array): number {
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
        if ((assigned[i] as number) <= level && capacity.fits(i, job.resources)) break;
        p += 1;
      }
      cursors[slot] = p;
      if (p < end) return order[p] as number;
    }
  }
  return -1;
}
