import { IrisError } from '../errors.js';
import { LaunchJobRequest } from '../gen/iris/v1/controller.js';
import { ExistingJobPolicy, JobState, StopReason, TaskState } from '../gen/iris/v1/types.js';
import { replicaPlanOf } from '../core/tpu-replicas.js';
import { parseJobName, taskIdOf } from '../core/job-names.js';
import { deviceConstraintsOf, mergeConstraints } from '../core/device-constraints.js';
import { constraintFromProto, constraintToProto } from '../wire/constraint-proto.js';
import { validateLaunchRequest } from './launch-request.js';
import { resolveRequestedBand } from './priority-bands.js';
import { createReservationHolder } from './reservations.js';
import { jobTree, killJobTree } from './lifecycle.js';
import type { LifecycleContext } from './lifecycle.js';
import { isTerminalJobState } from '../wire/task-states.js';

/** Default `max_retries_preemption` when a request leaves it unset. */
export const DEFAULT_MAX_RETRIES_PREEMPTION = 100;


/**
 * Runs `LaunchJob` inside the caller's transaction: validation, parent check, existing-name
 * policy, constraint merge, replica rules, inheritance, task expansion.
 * @returns the job id (an existing one when the policy adopts it).
 * @throws {IrisError} IRIS_INVALID_ARGUMENT, IRIS_FAILED_PRECONDITION or IRIS_ALREADY_EXISTS.
 */
export function submitJob(ctx: LifecycleContext, input: LaunchJobRequest): string {
  // The request's TPU variants are looked up in the table here, once; the rest reads the rows.
  const device = validateLaunchRequest(input);
  const { store, now } = ctx;
  const name = parseJobName(input.name);
  const parent = name.parent === null ? undefined : store.job(name.parent);
  if (name.parent !== null) {
    if (!parent) throw new IrisError('IRIS_FAILED_PRECONDITION', `parent job "${name.parent}" of "${name.id}" does not exist`);
    if (isTerminalJobState(parent.state)) {
      throw new IrisError('IRIS_FAILED_PRECONDITION', `parent job "${name.parent}" is ${JobState[parent.state]}; cannot submit child "${name.id}"`);
    }
  }
  const existing = store.job(name.id);
  if (existing) {
    const terminal = isTerminalJobState(existing.state);
    switch (input.existingJobPolicy) {
      case ExistingJobPolicy.EXISTING_JOB_POLICY_KEEP:
        return existing.job_id;
      case ExistingJobPolicy.EXISTING_JOB_POLICY_ERROR:
        throw new IrisError('IRIS_ALREADY_EXISTS', `job "${name.id}" already exists`);
      case ExistingJobPolicy.EXISTING_JOB_POLICY_RECREATE:
        break;
      default:
        if (!terminal) throw new IrisError('IRIS_ALREADY_EXISTS', `job "${name.id}" already exists and is ${JobState[existing.state]}; stop it first or use policy RECREATE`);
    }
    killJobTree(ctx, existing.job_id, StopReason.STOP_REASON_CANCELLED, 'replaced by a new submission');
    for (const j of jobTree(store, existing.job_id)) store.deleteJob(j.job_id);
  }

  const plan = replicaPlanOf(device, input.replicas);
  if (plan.failure !== null) throw new IrisError('IRIS_INVALID_ARGUMENT', `replicas: ${plan.failure}`, { details: { replicas: plan.replicas } });

  const req = LaunchJobRequest.fromPartial(input);
  req.replicas = plan.replicas;
  req.maxRetriesPreemption = input.maxRetriesPreemption ?? DEFAULT_MAX_RETRIES_PREEMPTION;
  if (req.coscheduling === undefined && plan.coscheduling !== null) req.coscheduling = { groupBy: plan.coscheduling.groupBy, tasksPerGroup: plan.coscheduling.tasksPerGroup };
  const tpu = req.resources?.device?.kind;
  if (tpu?.$case === 'tpu' && device.kind === 'tpu') {
    tpu.value.variant = device.tpu.name;
    if (tpu.value.count === 0) tpu.value.count = device.tpu.chipsPerVm;
  }
  const parentReq = parent ? store.request(parent) : undefined;
  req.priorityBand = resolveRequestedBand(input.priorityBand, parentReq);
  req.constraints = mergeConstraints({
    derived: deviceConstraintsOf(device),
    user: input.constraints.map(constraintFromProto),
    parent: (parentReq?.constraints ?? []).map(constraintFromProto),
  }).map(constraintToProto);
  if (parentReq) {
    const env = req.environment ?? { envVars: {}, dependencyGroups: [], npmPackages: [] };
    env.envVars = { ...(parentReq.environment?.envVars ?? {}), ...env.envVars };
    if (env.dependencyGroups.length === 0) env.dependencyGroups = [...(parentReq.environment?.dependencyGroups ?? [])];
    if (env.npmPackages.length === 0) env.npmPackages = [...(parentReq.environment?.npmPackages ?? [])];
    if (env.pythonEnv === undefined && parentReq.environment?.pythonEnv !== undefined) env.pythonEnv = { ...parentReq.environment.pythonEnv };
    req.environment = env;
    if (req.entrypoint && req.entrypoint.setupCommands.length === 0 && parentReq.entrypoint) {
      req.entrypoint.setupCommands = parentReq.entrypoint.setupCommands.map((c) => ({ argv: [...c.argv] }));
    }
    if (req.bundleId === '') req.bundleId = parentReq.bundleId;
    // A child of an in-place job (embedded cluster) runs in the same workspace unless it brings a bundle.
    if (req.bundleId === '' && req.entrypoint && !req.entrypoint.inPlace && parentReq.entrypoint?.inPlace) {
      req.entrypoint.inPlace = true;
      req.entrypoint.workdir = parentReq.entrypoint.workdir;
    }
  }

  const seq = store.nextSeq('job_seq');
  const row = {
    job_id: name.id,
    parent_id: name.parent,
    root_id: name.root,
    user: parent?.user ?? name.user,
    depth: name.depth,
    request: Buffer.from(LaunchJobRequest.encode(req).finish()),
    state: JobState.JOB_STATE_PENDING,
    error: '',
    exit_code: 0,
    submitted_at_ms: now,
    root_submitted_at_ms: parent ? parent.root_submitted_at_ms : now,
    started_at_ms: 0,
    finished_at_ms: 0,
    seq,
    scheduling_deadline_ms: req.schedulingTimeoutMs > 0 ? now + req.schedulingTimeoutMs : 0,
  };
  store.insertJob(row);
  for (let i = 0; i < plan.replicas; i++) {
    store.insertTask({
      task_id: taskIdOf(name.id, i),
      job_id: name.id,
      task_index: i,
      state: TaskState.TASK_STATE_PENDING,
      max_retries_failure: req.maxRetriesFailure,
      max_retries_preemption: req.maxRetriesPreemption,
    });
  }
  createReservationHolder(ctx, row, req);
  ctx.changedJobs.add(name.id);
  return name.id;
}
