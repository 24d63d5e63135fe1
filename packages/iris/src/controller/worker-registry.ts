import type { RegisterRequest } from '../gen/iris/v1/controller.js';
import { TaskState, WorkerMetadata } from '../gen/iris/v1/types.js';
import type { AttributeValue } from '../gen/iris/v1/types.js';
import { applyTaskOutcome } from './lifecycle.js';
import type { LifecycleContext } from './lifecycle.js';
import type { WorkerRow } from './store/store.js';
import { isTerminalTaskState } from '../wire/task-states.js';

/** Worker liveness settings: how long and how many failed calls before a worker counts as lost. */
export interface LivenessConfig {
  /** A worker is reaped only after being unreachable this long… */
  readonly workerUnreachableGraceMs: number;
  /** …and after at least this many consecutive failed Reconcile calls. */
  readonly minUnreachableFailures: number;
}

/** Plain attribute values (`string | number`) from the proto map. */
export function attributesFromProto(attrs: Record<string, AttributeValue>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (v.v === undefined) continue;
    out[k] = v.v.value;
  }
  return out;
}

/** Worker attributes with the device-derived well-known keys filled in when the worker left them out. */
export function effectiveAttributes(meta: WorkerMetadata): Record<string, string | number> {
  const attrs = attributesFromProto(meta.attributes);
  const kind = meta.device?.kind;
  attrs['device-type'] ??= kind?.$case ?? 'cpu';
  if (kind?.$case === 'tpu' || kind?.$case === 'gpu') attrs['device-variant'] ??= kind.value.variant.toLowerCase();
  if (kind?.$case === 'gpu') {
    attrs['gpu-variant'] ??= kind.value.variant.toLowerCase();
    attrs['gpu-count'] ??= kind.value.count;
  }
  return attrs;
}

/**
 * Handles `Register`: same id and boot id reconnects; a new boot id fails the old row's live
 * attempts as worker failures and replaces the row; an unknown id gets a fresh row.
 */
export function registerWorker(ctx: LifecycleContext, req: RegisterRequest): { workerId: string; reconnected: boolean } {
  const { store, now } = ctx;
  const meta = req.metadata ?? WorkerMetadata.fromPartial({});
  const existing = store.worker(req.workerId);
  if (existing && existing.boot_id === req.bootId && existing.address === req.address) {
    store.updateWorkerLiveness({ worker_id: existing.worker_id, last_contact_ms: now, first_failure_ms: 0, consecutive_failures: 0 });
    return { workerId: existing.worker_id, reconnected: true };
  }
  if (existing) reapWorker(ctx, existing, `worker ${existing.worker_id} restarted`);
  store.insertWorker({
    worker_id: req.workerId,
    boot_id: req.bootId,
    address: req.address,
    metadata: Buffer.from(WorkerMetadata.encode(meta).finish()),
    attributes: JSON.stringify(effectiveAttributes(meta)),
    registered_at_ms: now,
    registration_seq: store.nextSeq('worker_seq'),
    last_contact_ms: now,
  });
  return { workerId: req.workerId, reconnected: false };
}

/**
 * Removes a worker: its live attempts end as WORKER_FAILED (a retry spending the preemption budget,
 * or a free one if the attempt was still ASSIGNED), its endpoints go with the retried tasks, and the
 * row is deleted.
 */
export function reapWorker(ctx: LifecycleContext, worker: WorkerRow, error: string): void {
  const { store, now } = ctx;
  for (const attempt of store.liveAttemptsOnWorker(worker.worker_id)) {
    const wasAssigned = attempt.state === TaskState.TASK_STATE_ASSIGNED;
    store.updateAttempt({ ...attempt, state: TaskState.TASK_STATE_WORKER_FAILED, error, is_worker_failure: 1, finished_at_ms: now });
    const task = store.task(attempt.task_id);
    if (!task || attempt.stop_reason !== 0 || task.current_attempt_id !== attempt.attempt_id || isTerminalTaskState(task.state)) {
      if (task) ctx.changedJobs.add(task.job_id);
      continue;
    }
    applyTaskOutcome(ctx, task, wasAssigned ? { kind: 'delivery_failed', error } : { kind: 'worker_failed', error });
  }
  store.deleteWorker(worker.worker_id);
}

/** Records a successful Reconcile: the worker is reachable again. */
export function recordWorkerContact(ctx: LifecycleContext, workerId: string): void {
  ctx.store.updateWorkerLiveness({ worker_id: workerId, last_contact_ms: ctx.now, first_failure_ms: 0, consecutive_failures: 0 });
}

/**
 * Records a failed or timed-out Reconcile and reaps the worker once it has been unreachable for the
 * grace period **and** at least `minUnreachableFailures` calls in a row.
 * @returns true when the worker was reaped.
 */
export function recordWorkerFailure(ctx: LifecycleContext, workerId: string, config: LivenessConfig): boolean {
  const row = ctx.store.worker(workerId);
  if (!row) return false;
  const firstFailure = row.first_failure_ms || ctx.now;
  const failures = row.consecutive_failures + 1;
  if (failures >= config.minUnreachableFailures && ctx.now - firstFailure >= config.workerUnreachableGraceMs) {
    reapWorker(ctx, row, `worker ${workerId} unreachable for ${ctx.now - firstFailure} ms`);
    return true;
  }
  ctx.store.updateWorkerLiveness({ worker_id: workerId, last_contact_ms: row.last_contact_ms, first_failure_ms: firstFailure, consecutive_failures: failures });
  return false;
}

/** After a controller restart every worker's grace starts afresh. */
export function resetWorkerLiveness(ctx: LifecycleContext): void {
  for (const w of ctx.store.workers()) {
    ctx.store.updateWorkerLiveness({ worker_id: w.worker_id, last_contact_ms: ctx.now, first_failure_ms: 0, consecutive_failures: 0 });
  }
}
