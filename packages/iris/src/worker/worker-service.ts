import { status } from '@grpc/grpc-js';
import type { sendUnaryData, ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import { IrisError } from '../errors.js';
import type { IrisErrorCode } from '../errors.js';
import type { WorkerServiceServer } from '../gen/iris/v1/worker.js';
import type { ExecInAttemptRequest, ReconcileRequest, ReconcileResponse, WorkerHealth } from '../gen/iris/v1/worker.js';
import type { ExecOutput } from '../gen/iris/v1/types.js';
import { grpcServiceError } from '../wire/grpc-errors.js';
import { bearerTokenMatches } from '../wire/token-auth.js';
import { serveProfile } from '../wire/process-introspection.js';
import type { ProcessIntrospection } from '../wire/process-introspection.js';
import type { GetProcessLogsResponse, ProcessStatus } from '../gen/iris/v1/cluster.js';
import { execInTaskContext } from './attempt-exec.js';

/** What the gRPC handlers need from the daemon. */
export interface WorkerServiceBackend {
  workerId(): string;
  reconcile(request: ReconcileRequest): ReconcileResponse;
  health(): WorkerHealth;
  uptimeMs(): number;
  runningAttempts(): number;
  /** A RUNNING attempt's workdir and environment, or undefined. */
  execContext(attemptUid: string): { readonly cwd: string; readonly env: Readonly<Record<string, string>> } | undefined;
  /** This daemon's own process: status, recent log lines, profiles. */
  readonly introspection: ProcessIntrospection;
}

/** Builds the `WorkerService` implementation, enforcing the shared token when one is set. */
export function createWorkerService(backend: WorkerServiceBackend, token: string | undefined): WorkerServiceServer {
  const authorized = (call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>): boolean => bearerTokenMatches(call.metadata, token);
  return {
    reconcile(call, callback) {
      if (!authorized(call)) return callback(grpcServiceError(status.UNAUTHENTICATED, 'IRIS_UNAUTHENTICATED', 'missing or wrong token'));
      const request = call.request;
      if (request.workerId !== '' && request.workerId !== backend.workerId()) {
        // The controller addressed a worker id this daemon is not (a stale row after a restart with a new id).
        return callback(
          grpcServiceError(status.FAILED_PRECONDITION, 'IRIS_INVALID_ARGUMENT', `worker id "${request.workerId}" is not this worker ("${backend.workerId()}")`),
        );
      }
      try {
        callback(null, backend.reconcile(request));
      } catch (e) {
        if (IrisError.hasCode(e, 'IRIS_UNAVAILABLE')) return callback(grpcServiceError(status.UNAVAILABLE, 'IRIS_UNAVAILABLE', e.message));
        callback(grpcServiceError(status.INTERNAL, 'IRIS_INTERNAL', `reconcile failed: ${(e as Error).message}`));
      }
    },
    execInAttempt(call: ServerWritableStream<ExecInAttemptRequest, ExecOutput>) {
      const fail = (code: status, irisCode: IrisErrorCode, message: string) => call.emit('error', grpcServiceError(code, irisCode, message));
      if (!authorized(call)) return fail(status.UNAUTHENTICATED, 'IRIS_UNAUTHENTICATED', 'missing or wrong token');
      const { attemptUid, argv, timeoutMs } = call.request;
      if (argv.length === 0 || argv[0] === '') return fail(status.INVALID_ARGUMENT, 'IRIS_INVALID_ARGUMENT', 'no command to run');
      const context = backend.execContext(attemptUid);
      if (context === undefined) return fail(status.FAILED_PRECONDITION, 'IRIS_FAILED_PRECONDITION', `attempt ${attemptUid} is not running on this worker`);
      const gone = new AbortController();
      call.on('cancelled', () => gone.abort());
      call.on('error', () => gone.abort());
      void execInTaskContext({ context, argv, timeoutMs, write: (m) => void call.write(m), signal: gone.signal }).then(
        () => call.end(),
        (e: unknown) => fail(status.INTERNAL, 'IRIS_INTERNAL', `exec failed: ${(e as Error).message}`),
      );
      return undefined;
    },
    getProcessStatus(call, callback: sendUnaryData<ProcessStatus>) {
      if (!authorized(call)) return callback(grpcServiceError(status.UNAUTHENTICATED, 'IRIS_UNAUTHENTICATED', 'missing or wrong token'));
      callback(null, backend.introspection.status());
    },
    getProcessLogs(call, callback: sendUnaryData<GetProcessLogsResponse>) {
      if (!authorized(call)) return callback(grpcServiceError(status.UNAUTHENTICATED, 'IRIS_UNAUTHENTICATED', 'missing or wrong token'));
      callback(null, { lines: backend.introspection.logs(call.request.tail) });
    },
    profileProcess(call) {
      void serveProfile(backend.introspection, call, () => {
        if (!authorized(call)) throw new IrisError('IRIS_UNAUTHENTICATED', 'missing or wrong token');
      });
    },
    healthCheck(call, callback: sendUnaryData<{ healthy: boolean; uptimeMs: number; runningAttempts: number }>) {
      if (!authorized(call)) return callback(grpcServiceError(status.UNAUTHENTICATED, 'IRIS_UNAUTHENTICATED', 'missing or wrong token'));
      callback(null, { healthy: backend.health().healthy, uptimeMs: backend.uptimeMs(), runningAttempts: backend.runningAttempts() });
    },
  };
}
