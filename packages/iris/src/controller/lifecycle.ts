import { JobPreemptionPolicy, JobState, StopReason, TaskState } from '../gen/iris/v1/types.js';
import { deriveJobState } from './job-state.js';
import type { DerivedJobState } from './job-state.js';
import type { ControllerStore, JobRow, TaskRow } from './store/store.js';
import { decideTaskOutcome } from './task-outcome.js';
import type { AttemptOutcome } from './task-outcome.js';
import { holderJobIdOf } from '../core/job-names.js';
import { isTerminalJobState, isTerminalTaskState } from '../wire/task-states.js';

/** What every state change needs: the store, the tick's clock reading and change tracking. */
export interface LifecycleContext {
  readonly store: ControllerStore;
  readonly now: number;
  /** Job ids whose state or tasks changed; followers and waiters are woken for them. */
  readonly changedJobs: Set<string>;
  /** Operational warnings (e.g. stale-attempt precondition violations). */
  readonly warn: (message: string) => void;
}

const LIVE_TASK = new Set([TaskState.TASK_STATE_ASSIGNED, TaskState.TASK_STATE_BUILDING, TaskState.TASK_STATE_RUNNING]);

/** Asks the worker to stop the task's live attempt (if any) with `reason`, keeping an earlier reason. */
export function stopLiveAttempt(ctx: LifecycleContext, taskId: string, reason: StopReason): void {
  const live = ctx.store.liveAttemptOfTask(taskId);
  if (live && live.stop_reason === StopReason.STOP_REASON_UNSPECIFIED) ctx.store.updateAttempt({ ...live, stop_reason: reason });
}

/** Moves a non-terminal task to a terminal `state` decided by the controller (KILLED, COSCHED_FAILED, UNSCHEDULABLE). */
export function endTask(ctx: LifecycleContext, task: TaskRow, state: TaskState, reason: StopReason, error: string): void {
  if (isTerminalTaskState(task.state)) return;
  stopLiveAttempt(ctx, task.task_id, reason);
  ctx.store.updateTask({ ...task, state, error: task.error || error, finished_at_ms: ctx.now });
  ctx.store.deleteEndpointsOfTask(task.task_id);
  ctx.changedJobs.add(task.job_id);
}

/**
 * Applies the outcome of a task's current attempt: retry budgets, the coscheduled failure
 * domain, the parent preemption policy and job-state derivation.
 */
export function applyTaskOutcome(ctx: LifecycleContext, task: TaskRow, outcome: AttemptOutcome): void {
  if (isTerminalTaskState(task.state)) return;
  const d = decideTaskOutcome(
    {
      failureCount: task.failure_count,
      preemptionCount: task.preemption_count,
      maxRetriesFailure: task.max_retries_failure,
      maxRetriesPreemption: task.max_retries_preemption,
    },
    outcome,
  );
  const terminal = isTerminalTaskState(d.state);
  ctx.store.updateTask({
    ...task,
    state: d.state,
    failure_count: d.failureCount,
    preemption_count: d.preemptionCount,
    error: d.error,
    exit_code: d.exitCode,
    finished_at_ms: terminal ? ctx.now : 0,
  });
  ctx.store.deleteEndpointsOfTask(task.task_id);
  ctx.changedJobs.add(task.job_id);
  const job = ctx.store.job(task.job_id);
  if (!job) return;
  const request = ctx.store.request(job);
  if (d.retry && (outcome.kind === 'worker_failed' || outcome.kind === 'preempted')) applyParentPreemptionPolicy(ctx, job, request.preemptionPolicy);
  if (request.coscheduling !== undefined) {
    const siblings = ctx.store.tasksOfJob(job.job_id).filter((t) => t.task_id !== task.task_id);
    if (d.state === TaskState.TASK_STATE_FAILED || d.state === TaskState.TASK_STATE_WORKER_FAILED || d.state === TaskState.TASK_STATE_PREEMPTED) {
      for (const s of siblings) endTask(ctx, s, TaskState.TASK_STATE_COSCHED_FAILED, StopReason.STOP_REASON_JOB_TERMINATED, `gang member ${task.task_id} failed`);
    } else if (d.retry) {
      // Bounce live siblings free of charge so the gang is placed again as a whole.
      for (const s of siblings) {
        if (!LIVE_TASK.has(s.state)) continue;
        stopLiveAttempt(ctx, s.task_id, StopReason.STOP_REASON_SUPERSEDED);
        ctx.store.updateTask({ ...s, state: TaskState.TASK_STATE_PENDING });
        ctx.store.deleteEndpointsOfTask(s.task_id);
      }
    }
  }
  recomputeJob(ctx, job.job_id);
}

/**
 * Evicts live tasks of one job for `preemptorJobId`. Each victim's attempt is stopped with
 * PREEMPTED (the worker sends SIGTERM, waits its grace period, then SIGKILL). A victim still
 * ASSIGNED returns to PENDING free; a dispatched one spends its preemption budget and returns to
 * PENDING with "Preempted by <job>", or ends PREEMPTED beyond it. Every victim is charged, so a
 * gang slice evicted whole costs each member one preemption; other live members of the gang are
 * bounced free (or end COSCHED_FAILED when a member ended PREEMPTED).
 */
export function preemptTasks(ctx: LifecycleContext, jobId: string, taskIds: readonly string[], preemptorJobId: string): void {
  const { store } = ctx;
  const job = store.job(jobId);
  if (!job || isTerminalJobState(job.state)) return;
  const request = store.request(job);
  const error = `Preempted by ${preemptorJobId}`;
  const victims = new Set<string>();
  let retried = false;
  let ended: TaskRow | undefined;
  for (const id of taskIds) {
    const task = store.task(id);
    const live = store.liveAttemptOfTask(id);
    if (!task || !LIVE_TASK.has(task.state) || !live || live.stop_reason !== StopReason.STOP_REASON_UNSPECIFIED) continue;
    victims.add(id);
    stopLiveAttempt(ctx, id, StopReason.STOP_REASON_PREEMPTED);
    const d =
      live.state === TaskState.TASK_STATE_ASSIGNED
        ? decideTaskOutcome(budgetOf(task), { kind: 'delivery_failed', error })
        : decideTaskOutcome(budgetOf(task), { kind: 'preempted', error });
    const terminal = isTerminalTaskState(d.state);
    store.updateTask({ ...task, state: d.state, preemption_count: d.preemptionCount, error: d.error, exit_code: 0, finished_at_ms: terminal ? ctx.now : 0 });
    store.deleteEndpointsOfTask(id);
    ctx.changedJobs.add(jobId);
    if (d.retry) retried = true;
    else ended ??= task;
  }
  if (victims.size === 0) return;
  if (request.coscheduling !== undefined) {
    for (const s of store.tasksOfJob(jobId)) {
      if (victims.has(s.task_id)) continue;
      if (ended !== undefined) {
        endTask(ctx, s, TaskState.TASK_STATE_COSCHED_FAILED, StopReason.STOP_REASON_JOB_TERMINATED, `gang member ${ended.task_id} was preempted`);
      } else if (LIVE_TASK.has(s.state)) {
        stopLiveAttempt(ctx, s.task_id, StopReason.STOP_REASON_SUPERSEDED);
        store.updateTask({ ...s, state: TaskState.TASK_STATE_PENDING });
        store.deleteEndpointsOfTask(s.task_id);
      }
    }
  }
  if (retried) applyParentPreemptionPolicy(ctx, job, request.preemptionPolicy);
  recomputeJob(ctx, jobId);
}

function budgetOf(task: TaskRow) {
  return {
    failureCount: task.failure_count,
    preemptionCount: task.preemption_count,
    maxRetriesFailure: task.max_retries_failure,
    maxRetriesPreemption: task.max_retries_preemption,
  };
}

function applyParentPreemptionPolicy(ctx: LifecycleContext, job: JobRow, policy: JobPreemptionPolicy): void {
  const children = ctx.store.childJobs(job.job_id);
  if (children.length === 0) return;
  const taskCount = ctx.store.tasksOfJob(job.job_id).length;
  const terminate =
    policy === JobPreemptionPolicy.JOB_PREEMPTION_POLICY_TERMINATE_CHILDREN ||
    (policy === JobPreemptionPolicy.JOB_PREEMPTION_POLICY_UNSPECIFIED && taskCount <= 1);
  if (!terminate) return;
  for (const child of children) killJobTree(ctx, child.job_id, StopReason.STOP_REASON_JOB_TERMINATED, `parent ${job.job_id} was retried after a worker failure`);
}

/** Recomputes and stores a job's state; a terminal state is final and cascades. */
export function recomputeJob(ctx: LifecycleContext, jobId: string): void {
  const job = ctx.store.job(jobId);
  if (!job || isTerminalJobState(job.state)) return;
  const tasks = ctx.store.tasksOfJob(jobId);
  const request = ctx.store.request(job);
  const derived = deriveJobState(
    tasks.map((t) => ({ taskId: t.task_id, state: t.state, hadAttempt: t.current_attempt_id >= 0, error: t.error, exitCode: t.exit_code })),
    request.maxTaskFailures,
  );
  if (derived.state === job.state) return;
  finishOrUpdateJob(ctx, job, derived);
}

function finishOrUpdateJob(ctx: LifecycleContext, job: JobRow, derived: DerivedJobState): void {
  const terminal = isTerminalJobState(derived.state);
  const startedAt = job.started_at_ms || (derived.state === JobState.JOB_STATE_RUNNING || terminal ? ctx.now : 0);
  ctx.store.updateJob({
    ...job,
    state: derived.state,
    error: terminal ? derived.error : '',
    exit_code: terminal ? derived.exitCode : 0,
    started_at_ms: startedAt,
    finished_at_ms: terminal ? ctx.now : 0,
  });
  ctx.changedJobs.add(job.job_id);
  if (!terminal) return;
  const killReason = derived.state === JobState.JOB_STATE_UNSCHEDULABLE ? 'Scheduling timeout exceeded' : `job ${job.job_id} finished`;
  for (const t of ctx.store.tasksOfJob(job.job_id)) endTask(ctx, t, TaskState.TASK_STATE_KILLED, StopReason.STOP_REASON_JOB_TERMINATED, killReason);
  // A reservation ends with its job, however the job ended: the claimed workers are released.
  const holder = ctx.store.job(holderJobIdOf(job.job_id));
  if (holder) killJob(ctx, holder, StopReason.STOP_REASON_JOB_TERMINATED, `job ${job.job_id} finished`);
  if (derived.state !== JobState.JOB_STATE_SUCCEEDED) {
    for (const child of ctx.store.childJobs(job.job_id)) {
      killJobTree(ctx, child.job_id, StopReason.STOP_REASON_JOB_TERMINATED, `parent ${job.job_id} ended ${JobState[derived.state]}`);
    }
  }
}

/** Every job of the tree rooted at `jobId`, deepest first. */
export function jobTree(store: ControllerStore, jobId: string): JobRow[] {
  const root = store.job(jobId);
  if (!root) return [];
  const out: JobRow[] = [];
  const walk = (j: JobRow) => {
    out.push(j);
    for (const c of store.childJobs(j.job_id)) walk(c);
  };
  walk(root);
  return out.sort((a, b) => b.depth - a.depth || a.seq - b.seq);
}

/** Kills a job and all its descendants, deepest first, removing their endpoints. */
export function killJobTree(ctx: LifecycleContext, jobId: string, reason: StopReason, error: string): void {
  for (const j of jobTree(ctx.store, jobId)) killJob(ctx, j, reason, error);
}

/** Kills one job: every non-terminal task KILLED (live attempts stopped with `reason`), job KILLED. */
export function killJob(ctx: LifecycleContext, job: JobRow, reason: StopReason, error: string): void {
  if (isTerminalJobState(job.state)) return;
  for (const t of ctx.store.tasksOfJob(job.job_id)) endTask(ctx, t, TaskState.TASK_STATE_KILLED, reason, error);
  const fresh = ctx.store.job(job.job_id)!;
  ctx.store.updateJob({ ...fresh, state: JobState.JOB_STATE_KILLED, error, exit_code: 0, finished_at_ms: ctx.now });
  ctx.changedJobs.add(job.job_id);
}

