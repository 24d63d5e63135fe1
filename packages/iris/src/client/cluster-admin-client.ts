import { Metadata, credentials } from '@grpc/grpc-js';
import type { CallOptions, ClientOptions, ServiceError } from '@grpc/grpc-js';
import { createAuthInterceptor } from '../wire/token-auth.js';
import { irisErrorFromServiceError } from '../errors.js';
import { ClusterServiceClient } from '../gen/iris/v1/cluster.js';
import type { CheckpointControllerResponse, GetAutoscalerStatusResponse, ProcessLogLine, ProcessStatus, ProfileChunk, QueryStateRequest, QueryStateResponse } from '../gen/iris/v1/cluster.js';

/** Client of the controller's `ClusterService`: autoscaler state and on-demand checkpoints. */
export interface ClusterAdminClient extends AsyncDisposable {
  /** Scale groups, slices and unmet demand; `enabled` is false when the controller runs no autoscaler. */
  autoscalerStatus(): Promise<GetAutoscalerStatusResponse>;
  /**
   * Writes a controller checkpoint now and says where.
   * @throws {IrisError} IRIS_FAILED_PRECONDITION when the controller has no remote state dir; IRIS_UNAVAILABLE when the upload fails.
   */
  checkpointController(): Promise<CheckpointControllerResponse>;
  /**
   * One read-only SQL statement against a consistent snapshot of the controller's database (admins only).
   * @throws {IrisError} IRIS_PERMISSION_DENIED for a non-admin; IRIS_INVALID_ARGUMENT for SQL that is not one read-only
   * statement returning rows; IRIS_DEADLINE_EXCEEDED when it runs past `timeoutMs`.
   */
  queryState(request: Partial<QueryStateRequest> & { sql: string }): Promise<QueryStateResponse>;
  /**
   * The controller process (or, with `target.workerId`, that worker daemon's, asked through the
   * controller): resource use, event-loop delay, versions, a worker's running tasks (admins only).
   * @throws {IrisError} IRIS_NOT_FOUND for a worker the controller does not know; IRIS_UNAVAILABLE when it does not answer
   */
  processStatus(target?: { workerId?: string }): Promise<ProcessStatus>;
  /**
   * A CPU profile of the controller (or a worker daemon) over `durationMs` (`.cpuprofile` JSON) or a heap snapshot (`.heapsnapshot`), admins only.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for another kind; IRIS_FAILED_PRECONDITION while another profile runs
   */
  profileProcess(kind: 'cpu' | 'heap', durationMs?: number, target?: { workerId?: string }): Promise<Buffer>;
  /** The controller's (or a worker daemon's) own recent log lines, oldest first (the last `tail`; all kept when 0), admins only. */
  processLogs(tail?: number, target?: { workerId?: string }): Promise<ProcessLogLine[]>;
  close(): Promise<void>;
}

type Unary<TReq, TRes> = (req: TReq, md: Metadata, opts: CallOptions, cb: (e: ServiceError | null, r: TRes) => void) => unknown;

/**
 * Opens a `ClusterService` client.
 * @param options.deadlineMs deadline of status calls; checkpoints get at least 5 minutes. @default 10000
 */
export function createClusterAdminClient(options: { address: string; token?: string | undefined; deadlineMs?: number }): ClusterAdminClient {
  const token = options.token ?? (process.env['IRIS_AUTH_TOKEN'] || undefined);
  const clientOptions: ClientOptions = token ? { interceptors: [createAuthInterceptor(token)] } : {};
  const raw = new ClusterServiceClient(options.address, credentials.createInsecure(), clientOptions);
  const deadlineMs = options.deadlineMs ?? 10_000;
  const call = <TReq, TRes>(method: Unary<TReq, TRes>, req: TReq, ms: number): Promise<TRes> =>
    new Promise((resolve, reject) => {
      method.call(raw, req, new Metadata(), { deadline: Date.now() + ms }, (e, r) => (e ? reject(irisErrorFromServiceError(e)) : resolve(r)));
    });
  const close = async () => raw.close();
  return {
    autoscalerStatus: () => call(raw.getAutoscalerStatus, {}, deadlineMs),
    checkpointController: () => call(raw.checkpointController, {}, Math.max(deadlineMs, 300_000)),
    processStatus: (target) => call(raw.getProcessStatus, { workerId: target?.workerId ?? '' }, deadlineMs),
    processLogs: async (tail = 0, target) => (await call(raw.getProcessLogs, { tail, workerId: target?.workerId ?? '' }, deadlineMs)).lines,
    profileProcess: (kind, durationMs = 0, target) =>
      new Promise<Buffer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const stream = raw.profileProcess({ kind, durationMs, workerId: target?.workerId ?? '' }, new Metadata(), { deadline: Date.now() + Math.max(deadlineMs, durationMs + 120_000) });
        stream.on('data', (c: ProfileChunk) => chunks.push(Buffer.from(c.data)));
        stream.on('error', (e: ServiceError) => reject(irisErrorFromServiceError(e)));
        stream.on('end', () => resolve(Buffer.concat(chunks)));
      }),
    queryState: (r) => call(raw.queryState, { sql: r.sql, maxRows: r.maxRows ?? 0, timeoutMs: r.timeoutMs ?? 0 }, Math.max(deadlineMs, (r.timeoutMs || 10_000) + 5_000)),
    close,
    [Symbol.asyncDispose]: close,
  };
}
