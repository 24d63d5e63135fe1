import { LaunchJobRequest } from '../gen/iris/v1/controller.js';
import { JobState, TaskState } from '../gen/iris/v1/types.js';
import { deviceConstraintsOf, mergeConstraints } from '../core/device-constraints.js';
import { claimReservations } from '../scheduler/reservation-claims.js';
import type { ReservationEntryRequest } from '../scheduler/reservation-claims.js';
import type { SchedulerWorker } from '../scheduler/types.js';
import { constraintFromProto } from '../wire/constraint-proto.js';
import { recomputeJob } from './lifecycle.js';
import type { LifecycleContext } from './lifecycle.js';
import type { ControllerStore, JobRow } from './store/store.js';
import { isTerminalJobState, isTerminalTaskState } from '../wire/task-states.js';
import { holderJobIdOf, taskIdOf } from '../core/job-names.js';
import { resolvedDeviceOf, taskResources } from './request-resources.js';

/** Entries of a request's reservation (none when it has no reservation). */
export function reservationEntries(req: LaunchJobRequest): NonNullable<LaunchJobRequest['reservation']>['entries'] {
  return req.reservation?.entries ?? [];
}

/**
 * Creates the holder child `<job>/:reservation:` of a job with a reservation: one zero-resource
 * PENDING task per entry. A holder task is "placed" by claiming a worker, never by an attempt.
 */
export function createReservationHolder(ctx: LifecycleContext, job: JobRow, req: LaunchJobRequest): void {
  const entries = reservationEntries(req);
  if (entries.length === 0) return;
  const { store, now } = ctx;
  const holderId = holderJobIdOf(job.job_id);
  const holder = LaunchJobRequest.fromPartial({
    name: holderId,
    entrypoint: { run: { argv: ['true'] } },
    replicas: entries.length,
    priorityBand: req.priorityBand,
    user: req.user,
    maxRetriesPreemption: 0,
  });
  store.insertJob({
    job_id: holderId,
    parent_id: job.job_id,
    root_id: job.root_id,
    user: job.user,
    depth: job.depth + 1,
    request: Buffer.from(LaunchJobRequest.encode(holder).finish()),
    state: JobState.JOB_STATE_PENDING,
    error: '',
    exit_code: 0,
    submitted_at_ms: now,
    root_submitted_at_ms: job.root_submitted_at_ms,
    started_at_ms: 0,
    finished_at_ms: 0,
    seq: store.nextSeq('job_seq'),
    scheduling_deadline_ms: 0,
  });
  for (let i = 0; i < entries.length; i++) {
    store.insertTask({ task_id: taskIdOf(holderId, i), job_id: holderId, task_index: i, state: TaskState.TASK_STATE_PENDING, max_retries_failure: 0, max_retries_preemption: 0 });
  }
  ctx.changedJobs.add(holderId);
}

/** Claimed workers by id → the reserving job, counting only claims whose holder task still holds. */
export function activeClaims(store: ControllerStore): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of store.claims()) {
    const task = store.task(c.holder_task_id);
    if (task?.state === TaskState.TASK_STATE_RUNNING) out.set(c.worker_id, c.job_id);
  }
  return out;
}

/**
 * One claim step of the tick, before placement: drops claims of ended holders, releases claims on
 * workers that were reaped or re-registered since (the holder returns to PENDING), then claims
 * workers for unclaimed entries (pure `claimReservations`, oldest reservation first). A new claim
 * moves its holder task to RUNNING without an attempt: holders never dispatch, consume nothing and
 * never count as building.
 */
export function refreshReservationClaims(ctx: LifecycleContext, workers: readonly SchedulerWorker[]): void {
  const { store, now } = ctx;
  const claimedWorkers = new Set<string>();
  for (const c of store.claims()) {
    const task = store.task(c.holder_task_id);
    const worker = store.worker(c.worker_id);
    if (!task || isTerminalTaskState(task.state)) {
      store.deleteClaim(c.holder_task_id);
      continue;
    }
    if (!worker || worker.registered_at_ms > c.claimed_at_ms) {
      store.deleteClaim(c.holder_task_id);
      store.updateTask({ ...task, state: TaskState.TASK_STATE_PENDING, error: `claimed worker ${c.worker_id} was lost` });
      ctx.changedJobs.add(task.job_id);
      continue;
    }
    claimedWorkers.add(c.worker_id);
  }
  const entries: ReservationEntryRequest[] = [];
  const holders = store.activeHolderJobs();
  for (const holder of holders) {
    const parent = holder.parent_id === null ? undefined : store.job(holder.parent_id);
    if (!parent || isTerminalJobState(parent.state)) continue;
    const specs = reservationEntries(store.request(parent));
    for (const task of store.tasksOfJob(holder.job_id)) {
      const entry = specs[task.task_index];
      if (task.state !== TaskState.TASK_STATE_PENDING || entry === undefined) continue;
      const req = LaunchJobRequest.fromPartial({ resources: entry.resources });
      entries.push({
        holderTaskId: task.task_id,
        reservationJobId: parent.job_id,
        resources: taskResources(req),
        constraints: mergeConstraints({ derived: deviceConstraintsOf(resolvedDeviceOf(entry.resources?.device)), user: entry.constraints.map(constraintFromProto), parent: [] }),
      });
    }
  }
  if (entries.length === 0) return;
  const open = workers.filter((w) => !claimedWorkers.has(w.workerId));
  for (const claim of claimReservations(open, entries)) {
    const task = store.task(claim.holderTaskId);
    if (!task) continue;
    store.insertClaim({ holder_task_id: claim.holderTaskId, job_id: claim.reservationJobId, worker_id: claim.workerId, claimed_at_ms: now });
    store.updateTask({ ...task, state: TaskState.TASK_STATE_RUNNING, error: '', started_at_ms: task.started_at_ms || now });
    ctx.changedJobs.add(task.job_id);
    recomputeJob(ctx, task.job_id);
  }
}

/**
 * What reservations mean for one job: the reservation whose claimed workers it may use (its own or
 * its nearest reserving ancestor's), and, for a reserving job with entries still unclaimed, why it
 * waits.
 */
export function reservationViewOf(store: ControllerStore, job: JobRow, claimsByJob: ReadonlyMap<string, number>): { scope?: string; blockedReason?: string } {
  const own = reservationEntries(store.request(job)).length;
  if (own > 0) {
    const claimed = claimsByJob.get(job.job_id) ?? 0;
    const view: { scope: string; blockedReason?: string } = { scope: job.job_id };
    if (claimed < own) view.blockedReason = `waiting for reservation: ${claimed} of ${own} workers claimed`;
    return view;
  }
  for (let parentId = job.parent_id; parentId !== null; ) {
    const parent = store.job(parentId);
    if (!parent) break;
    if (reservationEntries(store.request(parent)).length > 0) return { scope: parent.job_id };
    parentId = parent.parent_id;
  }
  return {};
}
