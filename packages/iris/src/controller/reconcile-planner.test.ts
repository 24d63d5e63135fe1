import { describe, expect, it } from 'vitest';
import { RunTaskRequest, StopReason, TaskState } from '../gen/iris/v1/types.js';
import { planDesiredAttempts } from './reconcile-planner.js';
import type { PlannedAttemptRow } from './reconcile-planner.js';

const row = (attemptState: TaskState, stopReason = StopReason.STOP_REASON_UNSPECIFIED): PlannedAttemptRow => ({
  attemptUid: 'abcdef0123456789',
  taskId: '/u/j/0',
  attemptId: 2,
  attemptState,
  stopReason,
});
const spec = (r: PlannedAttemptRow) => RunTaskRequest.fromPartial({ taskId: r.taskId, attemptId: r.attemptId, attemptUid: r.attemptUid });

describe('planDesiredAttempts()', () => {
  it('plans nothing for no rows', () => {
    expect(planDesiredAttempts([], spec)).toEqual([]);
  });
  it('sends ASSIGNED attempts with their spec (ids and uid stamped)', () => {
    const [d] = planDesiredAttempts([row(TaskState.TASK_STATE_ASSIGNED)], spec);
    expect(d).toMatchObject({ attemptUid: 'abcdef0123456789', taskId: '/u/j/0', attemptId: 2, intent: { $case: 'run', value: { request: { attemptUid: 'abcdef0123456789', attemptId: 2 } } } });
  });
  it('sends BUILDING/RUNNING attempts without a spec', () => {
    for (const s of [TaskState.TASK_STATE_BUILDING, TaskState.TASK_STATE_RUNNING]) {
      expect(planDesiredAttempts([row(s)], spec)[0]?.intent).toEqual({ $case: 'run', value: {} });
    }
  });
  it.each([
    [StopReason.STOP_REASON_CANCELLED],
    [StopReason.STOP_REASON_TASK_TIMEOUT],
    [StopReason.STOP_REASON_JOB_TERMINATED],
    [StopReason.STOP_REASON_SUPERSEDED],
  ])('sends stop %s for a live attempt with a stop reason', (reason) => {
    expect(planDesiredAttempts([row(TaskState.TASK_STATE_RUNNING, reason)], spec)[0]?.intent).toEqual({ $case: 'stop', value: reason });
    expect(planDesiredAttempts([row(TaskState.TASK_STATE_ASSIGNED, reason)], spec)[0]?.intent).toEqual({ $case: 'stop', value: reason });
  });
  it('omits confirmed terminal attempts', () => {
    expect(planDesiredAttempts([row(TaskState.TASK_STATE_SUCCEEDED), row(TaskState.TASK_STATE_KILLED, StopReason.STOP_REASON_CANCELLED)], spec)).toEqual([]);
  });
});
