import type { DesiredAttempt } from '../gen/iris/v1/worker.js';
import type { RunTaskRequest } from '../gen/iris/v1/types.js';
import { StopReason, TaskState } from '../gen/iris/v1/types.js';
import { isLiveAttemptState } from '../wire/task-states.js';

/** One attempt placed on a worker, as the planner sees it. */
export interface PlannedAttemptRow {
  readonly attemptUid: string;
  readonly taskId: string;
  readonly attemptId: number;
  /** The attempt's last confirmed state. */
  readonly attemptState: TaskState;
  readonly stopReason: StopReason;
}

/**
 * Builds one worker's desired set from committed state. Pure: `specOf` supplies the run spec
 * for attempts not yet seen running. Terminal attempts are omitted (already confirmed).
 */
export function planDesiredAttempts(rows: readonly PlannedAttemptRow[], specOf: (row: PlannedAttemptRow) => RunTaskRequest): DesiredAttempt[] {
  const desired: DesiredAttempt[] = [];
  for (const row of rows) {
    if (!isLiveAttemptState(row.attemptState)) continue;
    const base = { attemptUid: row.attemptUid, taskId: row.taskId, attemptId: row.attemptId };
    if (row.stopReason !== StopReason.STOP_REASON_UNSPECIFIED) {
      desired.push({ ...base, intent: { $case: 'stop', value: row.stopReason } });
    } else if (row.attemptState === TaskState.TASK_STATE_ASSIGNED) {
      desired.push({ ...base, intent: { $case: 'run', value: { request: specOf(row) } } });
    } else {
      desired.push({ ...base, intent: { $case: 'run', value: {} } });
    }
  }
  return desired;
}
