import type { WorkerInfo } from '../gen/iris/v1/controller.js';
import { JobState, TaskState } from '../gen/iris/v1/types.js';
import type { JobStatus, ResourceUsage, TaskAttempt, TaskStatus } from '../gen/iris/v1/types.js';
import { bandToProto } from './priority-bands.js';
import type { BudgetView, PendingInfo } from './scheduling.js';
import { committedByWorker, pendingBandOf, workerCapacity } from './scheduling.js';
import type { AttemptRow, ControllerStore, JobRow, TaskRow } from './store/store.js';
import { isTerminalTaskState, taskStateName } from '../wire/task-states.js';
import { effectiveAttributes } from './worker-registry.js';

function attemptView(a: AttemptRow): TaskAttempt {
  return {
    attemptId: a.attempt_id,
    attemptUid: a.attempt_uid,
    workerId: a.worker_id,
    state: a.state,
    exitCode: a.exit_code,
    error: a.error,
    createdAtMs: a.created_at_ms,
    startedAtMs: a.started_at_ms,
    finishedAtMs: a.finished_at_ms,
    isWorkerFailure: a.is_worker_failure === 1,
    stopReason: a.stop_reason,
    lateState: a.late_state,
    lateExitCode: a.late_exit_code,
    lateReportedAtMs: a.late_reported_at_ms,
  };
}

/** The wire view of one task, with its attempts. */
export function taskStatusOf(store: ControllerStore, task: TaskRow, pending?: PendingInfo): TaskStatus {
  const attempts = store.attemptsOfTask(task.task_id);
  const current = attempts.find((a) => a.attempt_id === task.current_attempt_id);
  const worker = current ? store.worker(current.worker_id) : undefined;
  return {
    taskId: task.task_id,
    taskIndex: task.task_index,
    state: task.state,
    workerId: current?.worker_id ?? '',
    workerAddress: worker?.address ?? '',
    exitCode: task.exit_code || current?.exit_code || 0,
    error: task.error,
    startedAtMs: task.started_at_ms,
    finishedAtMs: task.finished_at_ms,
    ports: current?.ports ? (JSON.parse(current.ports) as Record<string, number>) : {},
    usage: current?.usage ? (JSON.parse(current.usage) as ResourceUsage) : undefined,
    currentAttemptId: task.current_attempt_id,
    attempts: attempts.map(attemptView),
    pendingReason: task.state === TaskState.TASK_STATE_PENDING ? (pending?.reason ?? '') : '',
    failureCount: task.failure_count,
    preemptionCount: task.preemption_count,
    priorityBand: current?.priority_band ?? 0,
  };
}

/**
 * The wire view of one job; `pending` comes from the last tick's diagnostics, `budgets` (read once
 * per call) gives the band the scheduler would use now.
 */
export function jobStatusOf(store: ControllerStore, job: JobRow, includeTasks: boolean, pendingJobs: ReadonlyMap<string, PendingInfo>, budgets?: BudgetView): JobStatus {
  const pending = pendingJobs.get(job.job_id);
  const req = store.request(job);
  const tasks = store.tasksOfJob(job.job_id);
  const counts: Record<string, number> = {};
  let failures = 0;
  let preemptions = 0;
  for (const t of tasks) {
    const name = taskStateName(t.state);
    counts[name] = (counts[name] ?? 0) + 1;
    failures += t.failure_count;
    preemptions += t.preemption_count;
  }
  const children = store.childJobs(job.job_id);
  const isPending = job.state === JobState.JOB_STATE_PENDING || (job.state === JobState.JOB_STATE_RUNNING && tasks.some((t) => t.state === TaskState.TASK_STATE_PENDING));
  return {
    jobId: job.job_id,
    user: job.user,
    state: job.state,
    error: job.error,
    exitCode: job.exit_code,
    submittedAtMs: job.submitted_at_ms,
    startedAtMs: job.started_at_ms,
    finishedAtMs: job.finished_at_ms,
    resources: req.resources,
    taskCount: tasks.length,
    completedCount: tasks.filter((t) => isTerminalTaskState(t.state)).length,
    taskStateCounts: counts,
    failureCount: failures,
    preemptionCount: preemptions,
    pendingReason: isPending ? (pending?.reason ?? 'waiting for the next scheduling pass') : '',
    canBeScheduled: pending?.canBeScheduled ?? true,
    hasChildren: children.length > 0,
    waitingFor: job.state === JobState.JOB_STATE_RUNNING ? waitingFor(children, pendingJobs) : '',
    tasks: includeTasks ? tasks.map((t) => taskStatusOf(store, t, pending)) : [],
    parentJobId: job.parent_id ?? '',
    depth: job.depth,
    submitArgv: req.submitArgv,
    priorityBand: req.priorityBand,
    effectivePriorityBand: budgets === undefined ? req.priorityBand : bandToProto(pendingBandOf(job, req, budgets)),
  };
}

/** The first child job that has not started, with its pending reason (what its parent waits for). */
function waitingFor(children: readonly JobRow[], pendingJobs: ReadonlyMap<string, PendingInfo>): string {
  const child = children.find((c) => c.state === JobState.JOB_STATE_PENDING);
  if (child === undefined) return '';
  const reason = pendingJobs.get(child.job_id)?.reason ?? 'waiting for the next scheduling pass';
  return `child job ${child.job_id} (pending: ${reason})`;
}

/** The wire view of every registered worker with derived free capacity. */
export function workerInfos(store: ControllerStore): WorkerInfo[] {
  const committed = committedByWorker(store);
  return store.workers().map((w) => {
    const meta = store.workerMetadata(w);
    const cap = workerCapacity(meta);
    const used = committed.get(w.worker_id);
    const attrs = effectiveAttributes(meta);
    const attributes: WorkerInfo['attributes'] = {};
    for (const [k, v] of Object.entries(attrs)) {
      attributes[k] = {
        v: typeof v === 'string' ? { $case: 'stringValue', value: v } : Number.isInteger(v) ? { $case: 'intValue', value: v } : { $case: 'floatValue', value: v },
      };
    }
    const capacity = { cpuMillicores: cap.cpuMillicores, memoryBytes: cap.memoryBytes, diskBytes: meta.diskBytes, gpuCount: cap.gpuCount, tpuChips: cap.tpuChips };
    return {
      workerId: w.worker_id,
      address: w.address,
      healthy: w.consecutive_failures === 0,
      attributes,
      capacity,
      free: {
        cpuMillicores: cap.cpuMillicores - (used?.used.cpuMillicores ?? 0),
        memoryBytes: cap.memoryBytes - (used?.used.memoryBytes ?? 0),
        diskBytes: meta.diskBytes,
        gpuCount: cap.gpuCount - (used?.used.gpuCount ?? 0),
        tpuChips: cap.tpuChips - (used?.used.tpuChips ?? 0),
      },
      runningAttempts: used?.running ?? 0,
      lastContactMs: w.last_contact_ms,
      registeredAtMs: w.registered_at_ms,
    };
  });
}
