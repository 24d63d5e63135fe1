import { describe, expect, it } from 'vitest';
import { TaskState } from '../gen/iris/v1/types.js';
import { decideTaskOutcome } from './task-outcome.js';

const budget = { failureCount: 0, preemptionCount: 0, maxRetriesFailure: 1, maxRetriesPreemption: 1 };

describe('decideTaskOutcome()', () => {
  it('retries a failure within budget, then fails', () => {
    const first = decideTaskOutcome(budget, { kind: 'failed', exitCode: 1, error: 'Exit code 1' });
    expect(first).toMatchObject({ state: TaskState.TASK_STATE_PENDING, retry: true, failureCount: 1 });
    const second = decideTaskOutcome({ ...budget, failureCount: 1 }, { kind: 'failed', exitCode: 1, error: 'x' });
    expect(second).toMatchObject({ state: TaskState.TASK_STATE_FAILED, retry: false, failureCount: 2, exitCode: 1 });
  });
  it('spends the preemption budget on worker failures, then WORKER_FAILED', () => {
    expect(decideTaskOutcome(budget, { kind: 'worker_failed', error: 'lost' })).toMatchObject({ state: TaskState.TASK_STATE_PENDING, preemptionCount: 1, failureCount: 0 });
    expect(decideTaskOutcome({ ...budget, preemptionCount: 1 }, { kind: 'worker_failed', error: 'lost' })).toMatchObject({ state: TaskState.TASK_STATE_WORKER_FAILED });
  });
  it('retries delivery failures for free, forever', () => {
    const spent = { ...budget, failureCount: 9, preemptionCount: 9 };
    expect(decideTaskOutcome(spent, { kind: 'delivery_failed', error: 'x' })).toMatchObject({ state: TaskState.TASK_STATE_PENDING, failureCount: 9, preemptionCount: 9 });
  });
  it('succeeds', () => {
    expect(decideTaskOutcome(budget, { kind: 'succeeded' }).state).toBe(TaskState.TASK_STATE_SUCCEEDED);
  });
});
