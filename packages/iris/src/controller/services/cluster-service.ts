import type { ServerUnaryCall, ServerWritableStream, sendUnaryData } from '@grpc/grpc-js';
import type { CheckpointInfo } from '../store/controller-checkpoint.js';
import { grpcStatusOfError } from '../../wire/grpc-errors.js';
import type { ClusterServiceServer, GetAutoscalerStatusResponse, ScaleGroupStatus, SliceStatus, UnmetDemandStatus, GetProcessLogsRequest, GetProcessStatusRequest, ProfileChunk, ProfileProcessRequest, QueryStateRequest, QueryStateResponse } from '../../gen/iris/v1/cluster.js';
import { serveProfile } from '../../wire/process-introspection.js';
import type { ProcessIntrospection } from '../../wire/process-introspection.js';
import type { WorkerProcessRelay } from './worker-process.js';
import { authorizeMethod } from './access-policy.js';
import type { ControllerMethod } from './access-policy.js';
import type { CallerAuth } from './caller-auth.js';
import { bearerOf } from './controller-service.js';

/**
 * What an attachment running beside the controller (the autoscaler) reports: its `AutoscalerStatus`
 * satisfies this, so the controller needs no import of the autoscaler, which sits above it.
 */
export interface AttachmentStatus {
  readonly evaluatedAtMs: number;
  readonly groups: readonly Readonly<ScaleGroupStatus>[];
  readonly slices: readonly Readonly<SliceStatus>[];
  readonly unmet: readonly Readonly<UnmetDemandStatus>[];
}

/** What `ClusterService` reads. */
export interface ClusterServiceDeps {
  /** Who each caller is. */
  readonly auth: CallerAuth;
  /** The autoscaler's status, when the controller runs one. */
  readonly autoscalerStatus: () => AttachmentStatus | undefined;
  /** Writes a checkpoint now; throws IRIS_FAILED_PRECONDITION without a remote state dir. */
  readonly checkpoint: () => Promise<CheckpointInfo>;
  /** A read-only query against a snapshot of the controller's database. */
  readonly queryState: (request: QueryStateRequest) => Promise<QueryStateResponse>;
  /** The controller process's own status and profiles. */
  readonly introspection: ProcessIntrospection;
  /** A worker daemon's status, logs and profiles (a request naming `worker_id`). */
  readonly workers: WorkerProcessRelay;
}

function unary<TReq, TRes>(deps: ClusterServiceDeps, method: ControllerMethod, fn: (request: TReq) => TRes | Promise<TRes>) {
  return (call: ServerUnaryCall<TReq, TRes>, callback: sendUnaryData<TRes>) => {
    Promise.resolve()
      .then(() => {
        authorizeMethod(deps.auth.authenticate(bearerOf(call.metadata)), method);
        return fn(call.request);
      })
      .then(
        (res) => callback(null, res),
        (e: unknown) => callback(grpcStatusOfError(e)),
      );
  };
}

/** Converts the autoscaler status to its wire form. */
export function autoscalerStatusToWire(status: AttachmentStatus | undefined): GetAutoscalerStatusResponse {
  if (!status) return { enabled: false, groups: [], slices: [], unmet: [], evaluatedAtMs: 0 };
  return { enabled: true, groups: status.groups.map((g) => ({ ...g })), slices: status.slices.map((s) => ({ ...s })), unmet: status.unmet.map((u) => ({ ...u })), evaluatedAtMs: status.evaluatedAtMs };
}

/** Builds the `ClusterService` handlers: autoscaler status, on-demand checkpoints and read-only state queries. */
export function createClusterService(deps: ClusterServiceDeps): ClusterServiceServer {
  return {
    getAutoscalerStatus: unary(deps, 'getAutoscalerStatus', () => autoscalerStatusToWire(deps.autoscalerStatus())),
    checkpointController: unary(deps, 'checkpointController', async () => {
      const info = await deps.checkpoint();
      return { url: info.url, bytes: info.bytes, createdAtMs: info.createdAtMs };
    }),
    queryState: unary(deps, 'queryState', (request: QueryStateRequest) => deps.queryState(request)),
    getProcessStatus: unary(deps, 'getProcessStatus', (request: GetProcessStatusRequest) =>
      request.workerId === '' ? deps.introspection.status() : deps.workers.status(request.workerId),
    ),
    profileProcess: (call) => profileProcess(deps, call),
    getProcessLogs: unary(deps, 'getProcessLogs', async (request: GetProcessLogsRequest) => ({
      lines: request.workerId === '' ? deps.introspection.logs(request.tail) : await deps.workers.logs(request.workerId, request.tail),
    })),
  };
}

function profileProcess(deps: ClusterServiceDeps, call: ServerWritableStream<ProfileProcessRequest, ProfileChunk>): void {
  const authorize = () => authorizeMethod(deps.auth.authenticate(bearerOf(call.metadata)), 'profileProcess');
  if (call.request.workerId === '') {
    void serveProfile(deps.introspection, call, authorize);
    return;
  }
  try {
    authorize();
  } catch (e) {
    call.emit('error', grpcStatusOfError(e));
    return;
  }
  deps.workers.relayProfile(call);
}
