import { JobState, TaskState } from '../gen/iris/v1/types.js';

const TERMINAL_TASK = new Set<TaskState>([
  TaskState.TASK_STATE_SUCCEEDED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_KILLED,
  TaskState.TASK_STATE_WORKER_FAILED,
  TaskState.TASK_STATE_UNSCHEDULABLE,
  TaskState.TASK_STATE_PREEMPTED,
  TaskState.TASK_STATE_COSCHED_FAILED,
]);

const LIVE_ATTEMPT = new Set<TaskState>([TaskState.TASK_STATE_ASSIGNED, TaskState.TASK_STATE_BUILDING, TaskState.TASK_STATE_RUNNING]);

/** True for the terminal task states (a task in one never runs again). */
export function isTerminalTaskState(s: TaskState): boolean {
  return TERMINAL_TASK.has(s);
}

/** True while an attempt may still hold resources on its worker (ASSIGNED, BUILDING, RUNNING). */
export function isLiveAttemptState(s: TaskState): boolean {
  return LIVE_ATTEMPT.has(s);
}

/** True for the terminal job states. */
export function isTerminalJobState(s: JobState): boolean {
  return (
    s === JobState.JOB_STATE_SUCCEEDED ||
    s === JobState.JOB_STATE_FAILED ||
    s === JobState.JOB_STATE_KILLED ||
    s === JobState.JOB_STATE_WORKER_FAILED ||
    s === JobState.JOB_STATE_UNSCHEDULABLE
  );
}

/** The enum name without its prefix, e.g. `RUNNING`. */
export function jobStateName(s: JobState): string {
  return (JobState[s] ?? 'JOB_STATE_UNSPECIFIED').replace(/^JOB_STATE_/, '');
}

/** The enum name without its prefix, e.g. `ASSIGNED`. */
export function taskStateName(s: TaskState): string {
  return (TaskState[s] ?? 'TASK_STATE_UNSPECIFIED').replace(/^TASK_STATE_/, '');
}
