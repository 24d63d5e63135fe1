import { IrisError } from '../errors.js';
import type { ReportAttemptRequest } from '../gen/iris/v1/controller.js';
import type { AttemptObservation, ReconcileResponse } from '../gen/iris/v1/worker.js';
import { StopReason, TaskState } from '../gen/iris/v1/types.js';
import { applyTaskOutcome, recomputeJob } from './lifecycle.js';
import type { LifecycleContext } from './lifecycle.js';
import type { AttemptRow } from './store/store.js';
import { isLiveAttemptState, isTerminalTaskState } from '../wire/task-states.js';
import { reapWorker, recordWorkerContact } from './worker-registry.js';

const ORDER: Partial<Record<TaskState, number>> = {
  [TaskState.TASK_STATE_PENDING]: 0,
  [TaskState.TASK_STATE_ASSIGNED]: 1,
  [TaskState.TASK_STATE_BUILDING]: 2,
  [TaskState.TASK_STATE_RUNNING]: 3,
};

/**
 * Applies one worker's Reconcile response, idempotently: only uids this tick planned for the
 * worker count; states never regress; a terminal attempt is never rewritten; a cancelled task is
 * never reopened; `MISSING` ends the attempt as WORKER_FAILED `worker_lost_spec`.
 */
export function applyReconcileResponse(ctx: LifecycleContext, workerId: string, planned: ReadonlySet<string>, resp: ReconcileResponse): void {
  const worker = ctx.store.worker(workerId);
  if (!worker) return;
  recordWorkerContact(ctx, workerId);
  for (const obs of resp.observed) {
    if (!planned.has(obs.attemptUid)) continue;
    const attempt = ctx.store.attemptByUid(obs.attemptUid);
    if (!attempt || attempt.worker_id !== workerId) continue;
    applyObservation(ctx, attempt, obs);
  }
  if (resp.health && !resp.health.healthy) reapWorker(ctx, worker, `worker ${workerId} reported unhealthy: ${resp.health.error}`);
}

/**
 * Applies a task supervisor's report of how an attempt ended, as an observation by the attempt's
 * worker: only for an attempt that is still live on that worker and only with a terminal state.
 * An attempt whose process exited 0 is SUCCEEDED even when its worker died before saying so.
 */
export function applySupervisorReport(ctx: LifecycleContext, req: ReportAttemptRequest): void {
  const terminal = [TaskState.TASK_STATE_SUCCEEDED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_KILLED];
  if (!terminal.includes(req.state)) throw new IrisError('IRIS_INVALID_ARGUMENT', `state: a supervisor reports SUCCEEDED, FAILED or KILLED, not ${TaskState[req.state] ?? req.state}`);
  const attempt = ctx.store.attemptByUid(req.attemptUid);
  if (!attempt || attempt.worker_id !== req.workerId) return;
  if (!isLiveAttemptState(attempt.state)) return recordLateOutcome(ctx, attempt, req);
  applyObservation(ctx, attempt, {
    attemptUid: req.attemptUid,
    // Killed by its supervisor because the worker died or stalled: the worker's failure, not the task's.
    state: req.state === TaskState.TASK_STATE_KILLED ? TaskState.TASK_STATE_WORKER_FAILED : req.state,
    exitCode: req.exitCode,
    error: req.error,
    startedAtMs: 0,
    finishedAtMs: req.finishedAtMs,
    ports: {},
  });
}

/**
 * A supervisor's report about an attempt the controller had already ended otherwise (it reaped the
 * silent worker and ran the task again): terminal is final, so the attempt keeps its state and the
 * task its course, but the truth is kept beside it (`late_state`), so the attempt history shows a
 * body that ran to completion twice. Only the first such report counts; the job's state does not
 * change, so no watcher is woken.
 */
function recordLateOutcome(ctx: LifecycleContext, attempt: AttemptRow, req: ReportAttemptRequest): void {
  // Only an attempt the controller ended for lack of news can be contradicted; a KILLED report is the
  // supervisor's own kill after losing its daemon, which WORKER_FAILED already says.
  if (attempt.state !== TaskState.TASK_STATE_WORKER_FAILED || attempt.late_state !== TaskState.TASK_STATE_UNSPECIFIED) return;
  if (req.state === TaskState.TASK_STATE_KILLED) return;
  ctx.store.recordLateOutcome({ attempt_uid: attempt.attempt_uid, late_state: req.state, late_exit_code: req.exitCode, late_reported_at_ms: ctx.now });
  ctx.warn(
    `attempt ${attempt.task_id}:${attempt.attempt_id} on worker ${attempt.worker_id} was recorded ${TaskState[attempt.state]}, but its supervisor reports it ended ${TaskState[req.state]} (exit ${req.exitCode}); kept in its attempt history as a late outcome`,
  );
}

function applyObservation(ctx: LifecycleContext, attempt: AttemptRow, obs: AttemptObservation): void {
  const { store, now } = ctx;
  const task = store.task(attempt.task_id);
  if (!task) return;
  const current = task.current_attempt_id === attempt.attempt_id;
  const claimsLive = obs.state === TaskState.TASK_STATE_BUILDING || obs.state === TaskState.TASK_STATE_RUNNING;
  if (!isLiveAttemptState(attempt.state)) {
    // Terminal is final; a non-current attempt claiming to run is a protocol violation worth logging.
    if (!current && claimsLive) {
      ctx.warn(`stale attempt precondition violation: ${attempt.task_id}:${attempt.attempt_id} reported ${TaskState[obs.state]} but the current attempt is ${task.current_attempt_id}`);
    }
    return;
  }
  const usage = obs.usage ? JSON.stringify(obs.usage) : attempt.usage;
  const ports = Object.keys(obs.ports).length > 0 ? JSON.stringify(obs.ports) : attempt.ports;

  if (claimsLive) {
    if ((ORDER[obs.state] ?? 0) <= (ORDER[attempt.state] ?? 0)) {
      if (usage !== attempt.usage || ports !== attempt.ports) store.updateAttempt({ ...attempt, usage, ports });
      return;
    }
    const startedAt = attempt.started_at_ms || obs.startedAtMs || now;
    store.updateAttempt({ ...attempt, state: obs.state, started_at_ms: startedAt, usage, ports });
    if (!current) {
      ctx.warn(`stale attempt precondition violation: ${attempt.task_id}:${attempt.attempt_id} reported ${TaskState[obs.state]} but the current attempt is ${task.current_attempt_id}`);
      return;
    }
    if (attempt.stop_reason !== StopReason.STOP_REASON_UNSPECIFIED || isTerminalTaskState(task.state) || task.state === TaskState.TASK_STATE_PENDING) return;
    store.updateTask({ ...task, state: obs.state, started_at_ms: task.started_at_ms || startedAt });
    ctx.changedJobs.add(task.job_id);
    recomputeJob(ctx, task.job_id);
    return;
  }
  if (!isTerminalTaskState(obs.state) && obs.state !== TaskState.TASK_STATE_MISSING) return; // PENDING/ASSIGNED: never regress

  const missing = obs.state === TaskState.TASK_STATE_MISSING;
  const timedOut = attempt.stop_reason === StopReason.STOP_REASON_TASK_TIMEOUT;
  const finalState = missing ? TaskState.TASK_STATE_WORKER_FAILED : timedOut ? TaskState.TASK_STATE_FAILED : obs.state;
  const error = missing ? 'worker_lost_spec' : timedOut ? attempt.error || 'task timed out' : obs.error;
  store.updateAttempt({
    ...attempt,
    state: finalState,
    exit_code: obs.exitCode,
    error,
    started_at_ms: attempt.started_at_ms || obs.startedAtMs,
    finished_at_ms: obs.finishedAtMs || now,
    is_worker_failure: missing || finalState === TaskState.TASK_STATE_WORKER_FAILED ? 1 : 0,
    usage,
    ports,
  });
  ctx.changedJobs.add(task.job_id);
  if (attempt.stop_reason !== StopReason.STOP_REASON_UNSPECIFIED || !current || isTerminalTaskState(task.state)) {
    // The task already moved on (killed, timed out, bounced): this only confirms the process ended.
    recomputeJob(ctx, task.job_id);
    return;
  }
  if (missing) {
    applyTaskOutcome(ctx, task, attempt.state === TaskState.TASK_STATE_ASSIGNED ? { kind: 'delivery_failed', error } : { kind: 'worker_failed', error });
  } else if (finalState === TaskState.TASK_STATE_SUCCEEDED) {
    applyTaskOutcome(ctx, task, { kind: 'succeeded' });
  } else if (finalState === TaskState.TASK_STATE_FAILED) {
    applyTaskOutcome(ctx, task, { kind: 'failed', exitCode: obs.exitCode, error: error || `Exit code ${obs.exitCode}` });
  } else {
    // WORKER_FAILED (spawn/workdir error) or an unrequested KILLED: the worker, not the task, failed.
    applyTaskOutcome(ctx, task, { kind: 'worker_failed', error: error || `attempt ended ${TaskState[finalState]} on its worker` });
  }
}
