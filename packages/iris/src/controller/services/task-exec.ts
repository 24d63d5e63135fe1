import { Metadata, credentials } from '@grpc/grpc-js';
import type { ClientOptions, ServerWritableStream, ServiceError } from '@grpc/grpc-js';
import { actorName } from '../../auth/identity.js';
import type { CallerIdentity } from '../../auth/identity.js';
import { createAuthInterceptor } from '../../wire/token-auth.js';
import { IrisError } from '../../errors.js';
import type { ExecInTaskRequest } from '../../gen/iris/v1/controller.js';
import { TaskState } from '../../gen/iris/v1/types.js';
import type { ExecOutput } from '../../gen/iris/v1/types.js';
import { WorkerServiceClient } from '../../gen/iris/v1/worker.js';
import { authorizeJobOwner } from './access-policy.js';
import type { ControllerState } from '../controller-state.js';
import type { IdentityStore } from '../store/identity-store.js';
import { taskStateName } from '../../wire/task-states.js';

/**
 * Where `ExecInTask` goes: the task's current attempt, which must be RUNNING, and its worker. Only
 * the job's owner (or an admin, audited as `task.exec`) may run a command in a task.
 * @throws {IrisError} IRIS_NOT_FOUND, IRIS_PERMISSION_DENIED, IRIS_FAILED_PRECONDITION (not running).
 */
export function execTarget(state: ControllerState, identities: IdentityStore, identity: CallerIdentity, req: ExecInTaskRequest): { attemptUid: string; address: string } {
  if (req.argv.length === 0 || req.argv[0] === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'no command to run');
  const task = state.store.task(req.taskId);
  const job = task ? state.store.job(task.job_id) : undefined;
  if (!task || !job) throw new IrisError('IRIS_NOT_FOUND', `task "${req.taskId}" not found`);
  const asAdmin = authorizeJobOwner(identity, job.user, 'exec in', job.job_id);
  const attempt = state.store.attempt(task.task_id, task.current_attempt_id);
  if (task.state !== TaskState.TASK_STATE_RUNNING || !attempt || attempt.state !== TaskState.TASK_STATE_RUNNING) {
    throw new IrisError('IRIS_FAILED_PRECONDITION', `task "${req.taskId}" is ${taskStateName(task.state)}, not running`);
  }
  const worker = state.store.worker(attempt.worker_id);
  if (!worker) throw new IrisError('IRIS_FAILED_PRECONDITION', `task "${req.taskId}" runs on worker "${attempt.worker_id}", which is gone`);
  if (asAdmin) identities.audit({ atMs: state.now(), actor: actorName(identity), action: 'task.exec', target: task.task_id, details: { owner: job.user, argv: req.argv } });
  return { attemptUid: attempt.attempt_uid, address: worker.address };
}

/**
 * Relays a worker's `ExecInAttempt` stream to the caller; a caller that goes away cancels the
 * worker's call, which stops the command.
 */
export function relayExec(
  call: ServerWritableStream<ExecInTaskRequest, ExecOutput>,
  target: { attemptUid: string; address: string },
  workerToken: string | undefined,
): Promise<void> {
  const options: ClientOptions = workerToken ? { interceptors: [createAuthInterceptor(workerToken)] } : {};
  const client = new WorkerServiceClient(target.address, credentials.createInsecure(), options);
  return new Promise<void>((resolve) => {
    const upstream = client.execInAttempt({ attemptUid: target.attemptUid, argv: call.request.argv, timeoutMs: call.request.timeoutMs }, new Metadata());
    const done = () => {
      client.close();
      resolve();
    };
    call.on('cancelled', () => upstream.cancel());
    upstream.on('data', (m: ExecOutput) => call.write(m));
    upstream.on('end', () => {
      call.end();
      done();
    });
    upstream.on('error', (e: ServiceError) => {
      call.emit('error', e);
      done();
    });
  });
}
