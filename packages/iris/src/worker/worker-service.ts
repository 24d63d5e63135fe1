import { timingSafeEqual } from 'node:crypto';
import { Metadata, status } from '@grpc/grpc-js';
import type { sendUnaryData, ServerUnaryCall, ServiceError } from '@grpc/grpc-js';
import { IrisError } from '../errors.js';
import type { IrisErrorCode } from '../errors.js';
import type { WorkerServiceServer } from '../gen/iris/v1/worker.js';
import type { ReconcileRequest, ReconcileResponse, WorkerHealth } from '../gen/iris/v1/worker.js';

/** What the gRPC handlers need from the daemon. */
export interface WorkerServiceBackend {
  workerId(): string;
  reconcile(request: ReconcileRequest): ReconcileResponse;
  health(): WorkerHealth;
  uptimeMs(): number;
  runningAttempts(): number;
}

/** Builds the `WorkerService` implementation, enforcing the shared token when one is set. */
export function createWorkerService(backend: WorkerServiceBackend, token: string | undefined): WorkerServiceServer {
  const authorized = (call: ServerUnaryCall<unknown, unknown>): boolean => {
    if (token === undefined) return true;
    const got = call.metadata.get('authorization')[0];
    if (typeof got !== 'string') return false;
    const a = Buffer.from(got);
    const b = Buffer.from(`Bearer ${token}`);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  return {
    reconcile(call, callback) {
      if (!authorized(call)) return callback(grpcError(status.UNAUTHENTICATED, 'IRIS_UNAUTHENTICATED', 'missing or wrong token'));
      const request = call.request;
      if (request.workerId !== '' && request.workerId !== backend.workerId()) {
        // The controller addressed a worker id this daemon is not (a stale row after a restart with a new id).
        return callback(
          grpcError(status.FAILED_PRECONDITION, 'IRIS_INVALID_ARGUMENT', `worker id "${request.workerId}" is not this worker ("${backend.workerId()}")`),
        );
      }
      try {
        callback(null, backend.reconcile(request));
      } catch (e) {
        if (IrisError.hasCode(e, 'IRIS_UNAVAILABLE')) return callback(grpcError(status.UNAVAILABLE, 'IRIS_UNAVAILABLE', e.message));
        callback(grpcError(status.INTERNAL, 'IRIS_INTERNAL', `reconcile failed: ${(e as Error).message}`));
      }
    },
    healthCheck(call, callback: sendUnaryData<{ healthy: boolean; uptimeMs: number; runningAttempts: number }>) {
      if (!authorized(call)) return callback(grpcError(status.UNAUTHENTICATED, 'IRIS_UNAUTHENTICATED', 'missing or wrong token'));
      callback(null, { healthy: backend.health().healthy, uptimeMs: backend.uptimeMs(), runningAttempts: backend.runningAttempts() });
    },
  };
}

function grpcError(code: status, irisCode: IrisErrorCode, message: string): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set('iris-error-code', irisCode);
  return { code, details: message, metadata };
}
