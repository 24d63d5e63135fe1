import { describe, expect, it } from 'vitest';
import { JobState, TaskState } from '../gen/iris/v1/types.js';
import { deriveJobState } from './job-state.js';
import type { TaskStateView } from './job-state.js';

const t = (state: TaskState, i = 0, extra: Partial<TaskStateView> = {}): TaskStateView => ({ taskId: `/u/j/${i}`, state, hadAttempt: false, error: '', exitCode: 0, ...extra });
const S = TaskState;

describe('deriveJobState()', () => {
  it('1: all SUCCEEDED → SUCCEEDED', () => {
    expect(deriveJobState([t(S.TASK_STATE_SUCCEEDED), t(S.TASK_STATE_SUCCEEDED, 1)], 0).state).toBe(JobState.JOB_STATE_SUCCEEDED);
  });
  it('2: more FAILED than max_task_failures → FAILED with the deciding task', () => {
    const d = deriveJobState([t(S.TASK_STATE_FAILED, 3, { error: 'Exit code 1', exitCode: 1 }), t(S.TASK_STATE_RUNNING, 1)], 0);
    expect(d).toEqual({ state: JobState.JOB_STATE_FAILED, error: 'task /u/j/3 failed: Exit code 1', exitCode: 1 });
  });
  it('3: any UNSCHEDULABLE → UNSCHEDULABLE "Scheduling timeout exceeded"', () => {
    expect(deriveJobState([t(S.TASK_STATE_UNSCHEDULABLE, 0, { error: 'Scheduling timeout exceeded' }), t(S.TASK_STATE_PENDING, 1)], 0)).toMatchObject({
      state: JobState.JOB_STATE_UNSCHEDULABLE,
      error: 'Scheduling timeout exceeded',
    });
  });
  it('4: any KILLED → KILLED', () => {
    expect(deriveJobState([t(S.TASK_STATE_KILLED), t(S.TASK_STATE_RUNNING, 1)], 0).state).toBe(JobState.JOB_STATE_KILLED);
  });
  it('5: all terminal with a WORKER_FAILED → WORKER_FAILED', () => {
    expect(deriveJobState([t(S.TASK_STATE_SUCCEEDED), t(S.TASK_STATE_WORKER_FAILED, 1)], 0).state).toBe(JobState.JOB_STATE_WORKER_FAILED);
    expect(deriveJobState([t(S.TASK_STATE_COSCHED_FAILED), t(S.TASK_STATE_SUCCEEDED, 1)], 0).state).toBe(JobState.JOB_STATE_WORKER_FAILED);
  });
  it('5: a WORKER_FAILED task with others still running is not yet terminal', () => {
    expect(deriveJobState([t(S.TASK_STATE_WORKER_FAILED), t(S.TASK_STATE_RUNNING, 1)], 0).state).toBe(JobState.JOB_STATE_RUNNING);
  });
  it('6: active tasks, or PENDING after an attempt → RUNNING', () => {
    expect(deriveJobState([t(S.TASK_STATE_ASSIGNED)], 0).state).toBe(JobState.JOB_STATE_RUNNING);
    expect(deriveJobState([t(S.TASK_STATE_PENDING, 0, { hadAttempt: true })], 0).state).toBe(JobState.JOB_STATE_RUNNING);
  });
  it('7: otherwise PENDING', () => {
    expect(deriveJobState([t(S.TASK_STATE_PENDING), t(S.TASK_STATE_PENDING, 1)], 0).state).toBe(JobState.JOB_STATE_PENDING);
  });
  it('tolerated failures with the rest succeeded → SUCCEEDED', () => {
    expect(deriveJobState([t(S.TASK_STATE_FAILED), t(S.TASK_STATE_SUCCEEDED, 1)], 1).state).toBe(JobState.JOB_STATE_SUCCEEDED);
  });
});
