import { RunTaskRequest } from '../gen/iris/v1/types.js';
import type { GangInfo } from '../gen/iris/v1/types.js';
import type { ControllerStore, AttemptRow } from './store/store.js';

/**
 * Builds the `RunTaskRequest` a worker needs to start `attempt`, from committed state only;
 * `taskToken` gives the task its own credential (per-user keys) in place of the worker's.
 */
export function buildRunSpec(store: ControllerStore, attempt: AttemptRow, taskToken: (jobId: string) => string = () => ''): RunTaskRequest {
  const task = store.task(attempt.task_id);
  const job = task ? store.job(task.job_id) : undefined;
  if (!task || !job) return RunTaskRequest.fromPartial({ taskId: attempt.task_id, attemptId: attempt.attempt_id, attemptUid: attempt.attempt_uid });
  const req = store.request(job);
  const gang = attempt.gang ? (JSON.parse(attempt.gang) as GangInfo) : undefined;
  return RunTaskRequest.fromPartial({
    jobId: job.job_id,
    taskId: task.task_id,
    taskIndex: task.task_index,
    numTasks: req.replicas,
    attemptId: attempt.attempt_id,
    attemptUid: attempt.attempt_uid,
    user: job.user,
    entrypoint: req.entrypoint,
    environment: req.environment,
    bundleId: req.bundleId,
    resources: req.resources,
    ports: req.ports,
    constraints: req.constraints,
    gang,
    timeoutMs: req.timeoutMs,
    taskToken: taskToken(job.job_id),
  });
}
