import type { ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { bearerTokenMatches } from '../auth/token-auth.js';
import type { AutoscalerStatus } from '../autoscaler/autoscaler.js';
import type { CheckpointInfo } from '../checkpoint/controller-checkpoint.js';
import { IrisError, grpcStatusOfError } from '../errors.js';
import type { ClusterServiceServer, GetAutoscalerStatusResponse } from '../gen/iris/v1/cluster.js';

/** What `ClusterService` reads. */
export interface ClusterServiceDeps {
  readonly authToken?: string | undefined;
  /** The autoscaler's status, when the controller runs one. */
  readonly autoscalerStatus: () => AutoscalerStatus | undefined;
  /** Writes a checkpoint now; throws IRIS_FAILED_PRECONDITION without a remote state dir. */
  readonly checkpoint: () => Promise<CheckpointInfo>;
}

function unary<TReq, TRes>(deps: ClusterServiceDeps, fn: () => TRes | Promise<TRes>) {
  return (call: ServerUnaryCall<TReq, TRes>, callback: sendUnaryData<TRes>) => {
    Promise.resolve()
      .then(() => {
        if (!bearerTokenMatches(call.metadata, deps.authToken)) throw new IrisError('IRIS_UNAUTHENTICATED', 'missing or wrong auth token');
        return fn();
      })
      .then(
        (res) => callback(null, res),
        (e: unknown) => callback(grpcStatusOfError(e)),
      );
  };
}

/** Converts the autoscaler status to its wire form. */
export function autoscalerStatusToWire(status: AutoscalerStatus | undefined): GetAutoscalerStatusResponse {
  if (!status) return { enabled: false, groups: [], slices: [], unmet: [], evaluatedAtMs: 0 };
  return { enabled: true, groups: status.groups.map((g) => ({ ...g })), slices: status.slices.map((s) => ({ ...s })), unmet: status.unmet.map((u) => ({ ...u })), evaluatedAtMs: status.evaluatedAtMs };
}

/** Builds the `ClusterService` handlers: autoscaler status and on-demand checkpoints. */
export function createClusterService(deps: ClusterServiceDeps): ClusterServiceServer {
  return {
    getAutoscalerStatus: unary(deps, () => autoscalerStatusToWire(deps.autoscalerStatus())),
    checkpointController: unary(deps, async () => {
      const info = await deps.checkpoint();
      return { url: info.url, bytes: info.bytes, createdAtMs: info.createdAtMs };
    }),
  };
}
