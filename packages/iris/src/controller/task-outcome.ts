import { TaskState } from '../gen/iris/v1/types.js';

/** How an attempt ended, as far as retry budgets are concerned. */
export type AttemptOutcome =
  | { readonly kind: 'succeeded' }
  /** Non-zero exit, setup failure or attempt timeout: spends the failure budget. */
  | { readonly kind: 'failed'; readonly exitCode: number; readonly error: string }
  /** Worker lost or restarted, or the spec was lost, after the attempt started: spends the preemption budget. */
  | { readonly kind: 'worker_failed'; readonly error: string }
  /** Evicted for higher-band work after the attempt was dispatched: spends the preemption budget, ends PREEMPTED beyond it. */
  | { readonly kind: 'preempted'; readonly error: string }
  /** Worker lost or spec lost while still ASSIGNED: always retried, free. */
  | { readonly kind: 'delivery_failed'; readonly error: string };

/** The retry counters and limits of one task. */
export interface TaskBudget {
  readonly failureCount: number;
  readonly preemptionCount: number;
  readonly maxRetriesFailure: number;
  readonly maxRetriesPreemption: number;
}

/** A task's next state after an attempt outcome. */
export interface TaskOutcomeDecision {
  readonly state: TaskState;
  readonly failureCount: number;
  readonly preemptionCount: number;
  /** True when the task goes back to PENDING for another attempt. */
  readonly retry: boolean;
  readonly exitCode: number;
  readonly error: string;
}

/** Applies the retry budgets (`failure_count`, `preemption_count`) to one attempt outcome. Pure. */
export function decideTaskOutcome(task: TaskBudget, outcome: AttemptOutcome): TaskOutcomeDecision {
  const base = { failureCount: task.failureCount, preemptionCount: task.preemptionCount };
  switch (outcome.kind) {
    case 'succeeded':
      return { ...base, state: TaskState.TASK_STATE_SUCCEEDED, retry: false, exitCode: 0, error: '' };
    case 'failed': {
      const failureCount = task.failureCount + 1;
      const retry = failureCount <= task.maxRetriesFailure;
      return {
        ...base,
        failureCount,
        retry,
        state: retry ? TaskState.TASK_STATE_PENDING : TaskState.TASK_STATE_FAILED,
        exitCode: outcome.exitCode,
        error: outcome.error,
      };
    }
    case 'worker_failed':
    case 'preempted': {
      const preemptionCount = task.preemptionCount + 1;
      const retry = preemptionCount <= task.maxRetriesPreemption;
      const exhausted = outcome.kind === 'preempted' ? TaskState.TASK_STATE_PREEMPTED : TaskState.TASK_STATE_WORKER_FAILED;
      return {
        ...base,
        preemptionCount,
        retry,
        state: retry ? TaskState.TASK_STATE_PENDING : exhausted,
        exitCode: 0,
        error: outcome.error,
      };
    }
    case 'delivery_failed':
      return { ...base, state: TaskState.TASK_STATE_PENDING, retry: true, exitCode: 0, error: outcome.error };
  }
}
