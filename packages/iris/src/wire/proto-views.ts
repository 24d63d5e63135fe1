import type { UserBudget as ProtoUserBudget, WorkerInfo as ProtoWorkerInfo } from '../gen/iris/v1/controller.js';
import { JobState as ProtoJobState, LogSource as ProtoLogSource, PriorityBand as ProtoPriorityBand, TaskState as ProtoTaskState } from '../gen/iris/v1/types.js';
import type { Endpoint as ProtoEndpoint, JobStatus, LogEntry as ProtoLogEntry, TaskStatus } from '../gen/iris/v1/types.js';
import type { Endpoint, JobInfo, JobState, LogEntry, LogSource, PriorityBand, TaskInfo, TaskState, UserBudget, WorkerInfo } from '../core/job-types.js';

/** `JOB_STATE_RUNNING` → `RUNNING`. */
export function jobStateFromProto(s: ProtoJobState): JobState {
  return (ProtoJobState[s] ?? 'JOB_STATE_PENDING').replace('JOB_STATE_', '') as JobState;
}

/** `RUNNING` → `JOB_STATE_RUNNING`. */
export function jobStateToProto(s: JobState): ProtoJobState {
  return ProtoJobState[`JOB_STATE_${s}`];
}

/** `TASK_STATE_ASSIGNED` → `ASSIGNED`. */
export function taskStateFromProto(s: ProtoTaskState): TaskState {
  return (ProtoTaskState[s] ?? 'TASK_STATE_PENDING').replace('TASK_STATE_', '') as TaskState;
}

const SOURCES: Readonly<Record<number, LogSource>> = {
  [ProtoLogSource.LOG_SOURCE_STDOUT]: 'stdout',
  [ProtoLogSource.LOG_SOURCE_STDERR]: 'stderr',
  [ProtoLogSource.LOG_SOURCE_BUILD]: 'build',
  [ProtoLogSource.LOG_SOURCE_SYSTEM]: 'system',
};

/** A wire log entry as a domain one. */
export function logEntryFromProto(e: ProtoLogEntry): LogEntry {
  return { ...e, source: SOURCES[e.source] ?? 'stdout' };
}

const SOURCE_NUMBERS: Readonly<Record<string, ProtoLogSource>> = Object.fromEntries(Object.entries(SOURCES).map(([n, name]) => [name, Number(n) as ProtoLogSource]));

/** A domain log entry as a wire one (an unknown source reads as stdout). */
export function logEntryToProto(e: LogEntry): ProtoLogEntry {
  return { ...e, source: SOURCE_NUMBERS[e.source] ?? ProtoLogSource.LOG_SOURCE_STDOUT };
}

/** A wire task status as a domain one. */
export function taskInfoFromProto(t: TaskStatus): TaskInfo {
  return {
    taskId: t.taskId,
    taskIndex: t.taskIndex,
    state: taskStateFromProto(t.state),
    workerId: t.workerId,
    workerAddress: t.workerAddress,
    exitCode: t.exitCode,
    error: t.error,
    startedAtMs: t.startedAtMs,
    finishedAtMs: t.finishedAtMs,
    ports: t.ports,
    currentAttemptId: t.currentAttemptId,
    attempts: t.attempts.map((a) => ({
      attemptId: a.attemptId,
      attemptUid: a.attemptUid,
      workerId: a.workerId,
      state: taskStateFromProto(a.state),
      exitCode: a.exitCode,
      error: a.error,
      startedAtMs: a.startedAtMs,
      finishedAtMs: a.finishedAtMs,
      isWorkerFailure: a.isWorkerFailure,
      lateOutcome: a.lateState === ProtoTaskState.TASK_STATE_UNSPECIFIED ? null : { state: taskStateFromProto(a.lateState), exitCode: a.lateExitCode, reportedAtMs: a.lateReportedAtMs },
    })),
    pendingReason: t.pendingReason,
    failureCount: t.failureCount,
    preemptionCount: t.preemptionCount,
    peakMemoryBytes: t.usage?.peakMemoryBytes ?? 0,
  };
}

/** A wire job status as a domain one. */
export function jobInfoFromProto(j: JobStatus): JobInfo {
  const kind = j.resources?.device?.kind;
  const device =
    kind?.$case === 'tpu' ? `tpu:${kind.value.variant}` : kind?.$case === 'gpu' ? `gpu:${kind.value.variant}x${kind.value.count}` : 'cpu';
  return {
    jobId: j.jobId,
    user: j.user,
    state: jobStateFromProto(j.state),
    error: j.error,
    exitCode: j.exitCode,
    submittedAtMs: j.submittedAtMs,
    startedAtMs: j.startedAtMs,
    finishedAtMs: j.finishedAtMs,
    taskCount: j.taskCount,
    completedCount: j.completedCount,
    taskStateCounts: j.taskStateCounts,
    failureCount: j.failureCount,
    preemptionCount: j.preemptionCount,
    pendingReason: j.pendingReason,
    canBeScheduled: j.canBeScheduled,
    hasChildren: j.hasChildren,
    waitingFor: j.waitingFor,
    parentJobId: j.parentJobId === '' ? null : j.parentJobId,
    resources: { cpu: (j.resources?.cpuMillicores ?? 0) / 1000, memoryBytes: j.resources?.memoryBytes ?? 0, device },
    submitArgv: j.submitArgv,
    priority: priorityFromProto(j.priorityBand) ?? 'INTERACTIVE',
    effectivePriority: priorityFromProto(j.effectivePriorityBand) ?? 'INTERACTIVE',
    tasks: j.tasks.map(taskInfoFromProto),
  };
}

/** `PRIORITY_BAND_BATCH` → `BATCH`; UNSPECIFIED and INHERIT → null. */
export function priorityFromProto(b: ProtoPriorityBand): PriorityBand | null {
  return b === ProtoPriorityBand.PRIORITY_BAND_PRODUCTION ? 'PRODUCTION' : b === ProtoPriorityBand.PRIORITY_BAND_INTERACTIVE ? 'INTERACTIVE' : b === ProtoPriorityBand.PRIORITY_BAND_BATCH ? 'BATCH' : null;
}

/** A wire user budget as a domain one. */
export function userBudgetFromProto(b: ProtoUserBudget): UserBudget {
  return { user: b.user, budgetLimit: b.budgetLimit, maxBand: priorityFromProto(b.maxBand), spend: b.spend, updatedAtMs: b.updatedAtMs };
}

/** A wire endpoint as a domain one. */
export function endpointFromProto(e: ProtoEndpoint): Endpoint {
  return { endpointId: e.endpointId, name: e.name, address: e.address, taskId: e.taskId, attemptId: e.attemptId, metadata: e.metadata };
}

/** A wire worker as a domain one. */
export function workerInfoFromProto(w: ProtoWorkerInfo): WorkerInfo {
  const attributes: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(w.attributes)) if (v.v !== undefined) attributes[k] = v.v.value;
  const amounts = (c: ProtoWorkerInfo['capacity']) => ({
    cpuMillicores: c?.cpuMillicores ?? 0,
    memoryBytes: c?.memoryBytes ?? 0,
    gpuCount: c?.gpuCount ?? 0,
    tpuChips: c?.tpuChips ?? 0,
  });
  return {
    workerId: w.workerId,
    address: w.address,
    healthy: w.healthy,
    attributes,
    capacity: amounts(w.capacity),
    free: amounts(w.free),
    runningAttempts: w.runningAttempts,
    lastContactMs: w.lastContactMs,
  };
}
