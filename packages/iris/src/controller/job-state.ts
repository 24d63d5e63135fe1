import { JobState, TaskState } from '../gen/iris/v1/types.js';
import { isTerminalTaskState } from '../wire/task-states.js';

/** What job-state derivation needs to know about one task. */
export interface TaskStateView {
  readonly taskId: string;
  readonly state: TaskState;
  /** True once the task has had at least one attempt. */
  readonly hadAttempt: boolean;
  readonly error: string;
  readonly exitCode: number;
}

/** The derived state of a job and, when terminal, the task that decided it. */
export interface DerivedJobState {
  readonly state: JobState;
  readonly error: string;
  readonly exitCode: number;
}

/**
 * Derives a job's state from its tasks, first matching rule wins. A job whose tasks all ended
 * with only tolerated failures (≤ `maxTaskFailures`) besides successes is SUCCEEDED.
 */
export function deriveJobState(tasks: readonly TaskStateView[], maxTaskFailures: number): DerivedJobState {
  const ok = (state: JobState): DerivedJobState => ({ state, error: '', exitCode: 0 });
  const decidedBy = (state: JobState, t: TaskStateView, what: string): DerivedJobState => ({
    state,
    error: `task ${t.taskId} ${what}${t.error ? `: ${t.error}` : ''}`,
    exitCode: t.exitCode,
  });
  if (tasks.length === 0) return ok(JobState.JOB_STATE_PENDING);
  const of = (s: TaskState) => tasks.filter((t) => t.state === s);
  if (of(TaskState.TASK_STATE_SUCCEEDED).length === tasks.length) return ok(JobState.JOB_STATE_SUCCEEDED);
  const failed = of(TaskState.TASK_STATE_FAILED);
  if (failed.length > maxTaskFailures) return decidedBy(JobState.JOB_STATE_FAILED, failed[failed.length - 1]!, 'failed');
  const unschedulable = of(TaskState.TASK_STATE_UNSCHEDULABLE);
  if (unschedulable.length > 0) {
    return { state: JobState.JOB_STATE_UNSCHEDULABLE, error: unschedulable[0]!.error || 'Scheduling timeout exceeded', exitCode: 0 };
  }
  const killed = of(TaskState.TASK_STATE_KILLED);
  if (killed.length > 0) return decidedBy(JobState.JOB_STATE_KILLED, killed[0]!, 'was killed');
  const allTerminal = tasks.every((t) => isTerminalTaskState(t.state));
  if (allTerminal) {
    const lost = tasks.find(
      (t) =>
        t.state === TaskState.TASK_STATE_WORKER_FAILED ||
        t.state === TaskState.TASK_STATE_PREEMPTED ||
        t.state === TaskState.TASK_STATE_COSCHED_FAILED,
    );
    if (lost) return decidedBy(JobState.JOB_STATE_WORKER_FAILED, lost, 'failed on its worker');
    // Only successes and tolerated failures remain.
    return ok(JobState.JOB_STATE_SUCCEEDED);
  }
  const active = tasks.some(
    (t) =>
      t.state === TaskState.TASK_STATE_ASSIGNED ||
      t.state === TaskState.TASK_STATE_BUILDING ||
      t.state === TaskState.TASK_STATE_RUNNING ||
      (t.state === TaskState.TASK_STATE_PENDING && t.hadAttempt) ||
      isTerminalTaskState(t.state),
  );
  return ok(active ? JobState.JOB_STATE_RUNNING : JobState.JOB_STATE_PENDING);
}
