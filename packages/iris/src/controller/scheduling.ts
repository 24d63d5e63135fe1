import type { LaunchJobRequest } from '../gen/iris/v1/controller.js';
import { StopReason, TaskState } from '../gen/iris/v1/types.js';
import type { WorkerMetadata } from '../gen/iris/v1/types.js';
import { constraintFromProto } from '../wire/constraint-proto.js';
import { effectiveBand, resourceValue, userSpend } from '../scheduler/priority-band.js';
import type { PriorityBand, UserBudgetLimits } from '../scheduler/priority-band.js';
import { RESERVATION_ATTRIBUTE } from '../scheduler/job-candidates.js';
import type {
  Assignment,
  AttributeValue,
  Preemption,
  ResourceAmounts,
  RunningTask,
  SchedulerJob,
  SchedulerLimits,
  SchedulerTask,
  SchedulerTaskState,
  SchedulerWorker,
  SchedulingInput,
  SchedulingResult,
} from '../scheduler/types.js';
import { mintAttemptUid } from './attempt-uid.js';
import { taskResources } from './request-resources.js';
import { applyTaskOutcome, endTask, preemptTasks, recomputeJob, stopLiveAttempt } from './lifecycle.js';
import type { LifecycleContext } from './lifecycle.js';
import { isHolderJobId } from '../core/job-names.js';
import { bandFromProto, bandToProto, limitsOfRow } from './priority-bands.js';
import { deviceKeyOf } from './request-resources.js';
import { activeClaims, reservationViewOf } from './reservations.js';
import type { AttemptRow, ControllerStore, JobRow } from './store/store.js';
import { isTerminalJobState, isTerminalTaskState, taskStateName } from '../wire/task-states.js';

/** Why a job is still pending, kept in memory and recomputed every tick. */
export interface PendingInfo {
  readonly reason: string;
  readonly canBeScheduled: boolean;
}


/** A worker's advertised totals. */
export function workerCapacity(meta: WorkerMetadata): ResourceAmounts {
  const kind = meta.device?.kind;
  return {
    cpuMillicores: meta.cpuMillicores,
    memoryBytes: meta.memoryBytes,
    gpuCount: kind?.$case === 'gpu' ? kind.value.count : 0,
    tpuChips: kind?.$case === 'tpu' ? kind.value.count : 0,
  };
}

const ZERO: ResourceAmounts = { cpuMillicores: 0, memoryBytes: 0, gpuCount: 0, tpuChips: 0 };

function add(a: ResourceAmounts, b: ResourceAmounts): ResourceAmounts {
  return {
    cpuMillicores: a.cpuMillicores + b.cpuMillicores,
    memoryBytes: a.memoryBytes + b.memoryBytes,
    gpuCount: a.gpuCount + b.gpuCount,
    tpuChips: a.tpuChips + b.tpuChips,
  };
}

function fits(capacity: ResourceAmounts, used: ResourceAmounts): boolean {
  return (
    used.cpuMillicores <= capacity.cpuMillicores &&
    used.memoryBytes <= capacity.memoryBytes &&
    used.gpuCount <= capacity.gpuCount &&
    used.tpuChips <= capacity.tpuChips
  );
}

/** What live attempts hold on one worker. */
export interface WorkerCommitment {
  readonly used: ResourceAmounts;
  /** Attempts still preparing (ASSIGNED or BUILDING). */
  readonly building: number;
  /** All live attempts. */
  readonly running: number;
}

/**
 * Resources held per worker, derived from live attempts (never stored as counters).
 *
 * A running task of a job that has a live (non-terminal) child job holds no CPU here: a parent that
 * waits for its children must not keep them from the cores it sits on, or a machine full of parents
 * (four experiments on a 2-core local cluster, each parent holding 0.5 CPU and waiting for a 1-CPU
 * child) waits forever. Its memory and accelerators stay held. Like Marin's Iris, this oversubscribes
 * CPU while a parent still computes beside its children.
 */
export function committedByWorker(store: ControllerStore): Map<string, WorkerCommitment> {
  const out = new Map<string, WorkerCommitment>();
  const jobOfTask = new Map<string, JobRow | undefined>();
  const waiting = new Map<string, boolean>();
  for (const a of store.liveAttempts()) {
    const jobId = a.task_id.slice(0, a.task_id.lastIndexOf('/'));
    if (!jobOfTask.has(jobId)) jobOfTask.set(jobId, store.job(jobId));
    const job = jobOfTask.get(jobId);
    let need = job ? taskResources(store.request(job)) : ZERO;
    if (job && a.state === TaskState.TASK_STATE_RUNNING) {
      if (!waiting.has(jobId)) waiting.set(jobId, hasLiveChild(store, jobId));
      if (waiting.get(jobId) === true) need = { ...need, cpuMillicores: 0 };
    }
    const cur = out.get(a.worker_id) ?? { used: ZERO, building: 0, running: 0 };
    const building = a.state === TaskState.TASK_STATE_ASSIGNED || a.state === TaskState.TASK_STATE_BUILDING ? 1 : 0;
    out.set(a.worker_id, { used: add(cur.used, need), building: cur.building + building, running: cur.running + 1 });
  }
  return out;
}

/** Whether a job has a child job that has not ended. */
export function hasLiveChild(store: ControllerStore, jobId: string): boolean {
  return store.childJobs(jobId).some((c) => !isTerminalJobState(c.state));
}

/** Healthy and unhealthy workers as the scheduler sees them, before reservation attributes. */
export function schedulerWorkers(store: ControllerStore, committed: ReadonlyMap<string, WorkerCommitment>): SchedulerWorker[] {
  return store.workers().map((w) => {
    const c = committed.get(w.worker_id);
    return {
      workerId: w.worker_id,
      healthy: w.consecutive_failures === 0,
      attributes: JSON.parse(w.attributes) as Record<string, AttributeValue>,
      capacity: workerCapacity(store.workerMetadata(w)),
      committed: c?.used ?? ZERO,
      buildingCount: c?.building ?? 0,
    };
  });
}

/** Live attempts with what they hold, the band stamped on them and their job. */
interface LiveAttemptView {
  readonly attempt: AttemptRow;
  readonly job: JobRow;
  readonly req: LaunchJobRequest;
  readonly resources: ResourceAmounts;
  readonly band: PriorityBand;
  /** The task moved on (stop requested): the attempt only still holds resources. */
  readonly stopping: boolean;
}

function liveAttemptViews(store: ControllerStore): LiveAttemptView[] {
  const out: LiveAttemptView[] = [];
  const attempts = store.liveAttempts();
  const jobOf = (a: AttemptRow) => a.task_id.slice(0, a.task_id.lastIndexOf('/'));
  const jobs = store.jobsByIds(new Set(attempts.map(jobOf)));
  for (const attempt of attempts) {
    const job = jobs.get(jobOf(attempt));
    if (!job) continue;
    const req = store.request(job);
    out.push({
      attempt,
      job,
      req,
      resources: taskResources(req),
      band: bandFromProto(attempt.priority_band || req.priorityBand),
      stopping: attempt.stop_reason !== StopReason.STOP_REASON_UNSPECIFIED,
    });
  }
  return out;
}

/** Budgets and spend of every user, from one view of the DB. */
export interface BudgetView {
  readonly limits: ReadonlyMap<string, UserBudgetLimits>;
  readonly spend: ReadonlyMap<string, number>;
}

/**
 * The band a pending task of `job` gets now: its requested band capped at the user's `max_band`,
 * and INTERACTIVE demoted to BATCH when the user's spend plus this task's value exceeds the budget.
 */
export function pendingBandOf(job: JobRow, req: LaunchJobRequest, budgets: BudgetView): PriorityBand {
  return effectiveBand(bandFromProto(req.priorityBand), budgets.limits.get(job.user), (budgets.spend.get(job.user) ?? 0) + resourceValue(taskResources(req)));
}

/** Reads user limits and derives spend from live, not-stopping attempts by their stamped band. */
export function budgetView(store: ControllerStore, live: readonly LiveAttemptView[] = liveAttemptViews(store)): BudgetView {
  const limits = new Map(store.userBudgets().map((r) => [r.user, limitsOfRow(r)] as const));
  const spend = userSpend(live.filter((v) => !v.stopping).map((v) => ({ user: v.job.user, band: v.band, resources: v.resources })));
  return { limits, spend };
}

/**
 * Adapts one consistent view of the DB (and the commitments derived from it) to the scheduler's
 * plain-data input: workers with their reservation claims as `reservation-job`, pending jobs
 * with their effective band (user cap and budget applied), user, device class and reservation
 * scope, and the live attempts preemption may pick victims from.
 */
export function buildSchedulingInput(store: ControllerStore, nowMs: number, limits: SchedulerLimits, committed: ReadonlyMap<string, WorkerCommitment>): SchedulingInput {
  const claims = activeClaims(store);
  const claimsByJob = new Map<string, number>();
  for (const jobId of claims.values()) claimsByJob.set(jobId, (claimsByJob.get(jobId) ?? 0) + 1);
  const workers: SchedulerWorker[] = schedulerWorkers(store, committed).map((w) => {
    const claimedBy = claims.get(w.workerId);
    return claimedBy === undefined ? w : { ...w, attributes: { ...w.attributes, [RESERVATION_ATTRIBUTE]: claimedBy } };
  });
  const live = liveAttemptViews(store);
  const budgets = budgetView(store, live);
  const bandOf = (user: string, requested: PriorityBand, adding = 0): PriorityBand =>
    effectiveBand(requested, budgets.limits.get(user), (budgets.spend.get(user) ?? 0) + adding);
  const pending = store.pendingTasks();
  const jobIds = new Set(pending.map((t) => t.job_id));
  // One query each for the rows every pending job needs, not one per job (a tick sees every pending job).
  const jobRows = store.jobsByIds(jobIds);
  const tasksOfJob = store.tasksOfPendingJobs();
  const withLiveAttempt = store.pendingTasksWithLiveAttempt();
  const jobs: SchedulerJob[] = [];
  const tasks: SchedulerTask[] = [];
  for (const jobId of jobIds) {
    if (isHolderJobId(jobId)) continue;
    const job = jobRows.get(jobId);
    if (!job) continue;
    const req = store.request(job);
    const reservation = reservationViewOf(store, job, claimsByJob);
    jobs.push({
      jobId,
      depth: job.depth,
      rootSubmittedAtMs: job.root_submitted_at_ms,
      submittedAtMs: job.submitted_at_ms,
      insertionSeq: job.seq,
      resources: taskResources(req),
      constraints: req.constraints.map(constraintFromProto),
      coscheduling: req.coscheduling ? { groupBy: req.coscheduling.groupBy, tasksPerGroup: req.coscheduling.tasksPerGroup } : null,
      // Judged with the task it would add, so a placement never puts its user over budget as
      // INTERACTIVE only to be demoted and preempted by the next pass.
      band: bandOf(job.user, bandFromProto(req.priorityBand), resourceValue(taskResources(req))),
      user: job.user,
      deviceKey: deviceKeyOf(req),
      ...(reservation.scope === undefined ? {} : { reservationScope: reservation.scope }),
      ...(reservation.blockedReason === undefined ? {} : { blockedReason: reservation.blockedReason }),
    });
    // A gang is placed only when all its non-terminal tasks are pending, so the scheduler sees them all.
    for (const t of tasksOfJob.get(jobId) ?? []) {
      if (isTerminalTaskState(t.state)) continue;
      tasks.push({
        taskId: t.task_id,
        jobId,
        taskIndex: t.task_index,
        state: taskStateName(t.state) as SchedulerTaskState,
        hasLiveAttempt: t.state === TaskState.TASK_STATE_PENDING && withLiveAttempt.has(t.task_id),
        schedulingDeadlineMs: job.scheduling_deadline_ms > 0 ? job.scheduling_deadline_ms : null,
      });
    }
  }
  const running: RunningTask[] = live.map((v) => ({
    taskId: v.attempt.task_id,
    jobId: v.job.job_id,
    workerId: v.attempt.worker_id,
    band: bandOf(v.job.user, v.band),
    resources: v.resources,
    deviceKey: deviceKeyOf(v.req),
    coscheduled: v.req.coscheduling !== undefined,
    stopping: v.stopping,
  }));
  return { nowMs, workers, jobs, tasks, limits, running, userSpend: budgets.spend };
}

/** Commits the preemption decisions of a pass: victims grouped by job, each stopped once. */
export function commitPreemptions(ctx: LifecycleContext, preemptions: readonly Preemption[]): void {
  const byJob = new Map<string, { tasks: string[]; preemptor: string }>();
  for (const p of preemptions) {
    const entry = byJob.get(p.victimJobId) ?? { tasks: [], preemptor: p.preemptorJobId };
    entry.tasks.push(p.victimTaskId);
    byJob.set(p.victimJobId, entry);
  }
  for (const [jobId, { tasks, preemptor }] of byJob) preemptTasks(ctx, jobId, tasks, preemptor);
}

/**
 * Commits a scheduling result in the caller's transaction: expires deadlines, then
 * re-checks every assignment against live capacity and worker existence (a gang is dropped whole if
 * any member fails the check) and creates ASSIGNED attempts.
 */
export function commitSchedulingResult(ctx: LifecycleContext, result: SchedulingResult, committed: ReadonlyMap<string, WorkerCommitment> = committedByWorker(ctx.store)): void {
  const { store } = ctx;
  for (const taskId of result.expiredTaskIds) {
    const task = store.task(taskId);
    if (!task || task.state !== TaskState.TASK_STATE_PENDING) continue;
    endTask(ctx, task, TaskState.TASK_STATE_UNSCHEDULABLE, StopReason.STOP_REASON_CANCELLED, 'Scheduling timeout exceeded');
    recomputeJob(ctx, task.job_id);
  }
  const used = new Map<string, ResourceAmounts>();
  // Expiring deadlines touches only PENDING tasks without live attempts, so the commitments still hold.
  for (const [w, c] of committed) used.set(w, c.used);
  const byJob = new Map<string, Assignment[]>();
  for (const a of result.assignments) byJob.set(a.jobId, [...(byJob.get(a.jobId) ?? []), a]);
  for (const [jobId, assignments] of byJob) {
    const job = store.job(jobId);
    if (!job) continue;
    const need = taskResources(store.request(job));
    const gang = assignments.some((a) => a.gang !== undefined);
    const accepted: Assignment[] = [];
    const trial = new Map(used);
    for (const a of assignments) {
      const worker = store.worker(a.workerId);
      const task = store.task(a.taskId);
      const ok =
        worker !== undefined &&
        task !== undefined &&
        task.state === TaskState.TASK_STATE_PENDING &&
        store.liveAttemptOfTask(a.taskId) === undefined &&
        fits(workerCapacity(store.workerMetadata(worker)), add(trial.get(a.workerId) ?? ZERO, need));
      if (!ok) {
        if (gang) {
          accepted.length = 0;
          break;
        }
        continue;
      }
      trial.set(a.workerId, add(trial.get(a.workerId) ?? ZERO, need));
      accepted.push(a);
    }
    if (accepted.length === 0) continue;
    for (const [w, r] of trial) used.set(w, r);
    for (const a of accepted) createAttempt(ctx, a);
    recomputeJob(ctx, jobId);
  }
}

function createAttempt(ctx: LifecycleContext, a: Assignment): void {
  const { store, now } = ctx;
  const task = store.task(a.taskId)!;
  const attemptId = store.attemptsOfTask(a.taskId).length;
  const uid = mintAttemptUid((u) => store.uidTaken(u));
  const gang = a.gang
    ? JSON.stringify({
        groupValue: a.gang.groupValue,
        rank: a.gang.rank,
        groupSize: a.gang.groupSize,
        sliceIndex: a.gang.sliceIndex,
        numSlices: a.gang.sliceCount,
        peerHosts: a.gang.peerWorkerIds.map((id) => hostOf(store.worker(id)?.address ?? '')),
      })
    : null;
  store.insertAttempt({
    task_id: a.taskId,
    attempt_id: attemptId,
    attempt_uid: uid,
    worker_id: a.workerId,
    state: TaskState.TASK_STATE_ASSIGNED,
    created_at_ms: now,
    gang,
    priority_band: bandToProto(a.band),
  });
  store.updateTask({ ...task, state: TaskState.TASK_STATE_ASSIGNED, current_attempt_id: attemptId, error: '', exit_code: 0, finished_at_ms: 0 });
  ctx.changedJobs.add(a.jobId);
}

function hostOf(address: string): string {
  const i = address.lastIndexOf(':');
  return i > 0 ? address.slice(0, i) : address;
}

/** Stops attempts running past their job's `timeout_ms` with TASK_TIMEOUT and records a failure. */
export function expireAttemptTimeouts(ctx: LifecycleContext): void {
  const { store, now } = ctx;
  for (const attempt of store.liveAttempts()) {
    if (attempt.stop_reason !== StopReason.STOP_REASON_UNSPECIFIED || attempt.started_at_ms === 0) continue;
    // Most jobs have no timeout: judged from the cached request before reading any row.
    const timeoutMs = store.requestOf(attempt.task_id.slice(0, attempt.task_id.lastIndexOf('/')))?.timeoutMs ?? 0;
    if (timeoutMs <= 0 || now - attempt.started_at_ms < timeoutMs) continue;
    const task = store.task(attempt.task_id);
    if (!task || task.current_attempt_id !== attempt.attempt_id || isTerminalTaskState(task.state)) continue;
    const error = `task timed out after ${timeoutMs} ms`;
    stopLiveAttempt(ctx, task.task_id, StopReason.STOP_REASON_TASK_TIMEOUT);
    store.updateAttempt({ ...store.attemptByUid(attempt.attempt_uid)!, error });
    applyTaskOutcome(ctx, task, { kind: 'failed', exitCode: 0, error });
  }
}
