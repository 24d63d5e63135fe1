import type { sendUnaryData, ServerUnaryCall, ServerWritableStream, ServerReadableStream } from '@grpc/grpc-js';
import { bearerTokenMatches } from '../auth/token-auth.js';
import { IrisError, grpcStatusOfError } from '../errors.js';
import type { BundleChunk, ControllerServiceServer, FetchBundleRequest, FollowLogsResponse, LogQuery, UploadBundleResponse } from '../gen/iris/v1/controller.js';
import type { JobState } from '../gen/iris/v1/types.js';
import type { BundleStore, BundleUpload } from './bundle-store.js';
import type { ControllerState } from './controller-state.js';
import { parseTaskId } from './job-names.js';
import { followLogEvents } from './log-follow.js';
import { jobStateName } from './task-states.js';
import { workerInfos } from './status-views.js';

/** Bundles travel in chunks of at most this many bytes. */
export const BUNDLE_CHUNK_BYTES = 1024 * 1024;
const MAX_UPLOAD_BYTES = 200 * 1024 * 1024;

/** What the gRPC service needs from the rest of the controller. */
export interface ControllerServiceDeps {
  readonly state: ControllerState;
  readonly bundles: BundleStore;
  /** Wakes the control loop (after LaunchJob, TerminateJob, Register). */
  readonly wake: () => void;
  readonly authToken?: string | undefined;
  readonly version: string;
  readonly startedAtMs: number;
  readonly reconcileIntervalMs: number;
  /** True once shutdown began: calls get UNAVAILABLE. */
  readonly isClosing: () => boolean;
  /** The dashboard's URL, reported by `GetClusterStatus`; unset when none is served. */
  readonly dashboardUrl?: string | undefined;
}

const MALFORMED = Symbol('malformed request');

/**
 * The service definition with request decoding that never throws: grpc-js answers a request it
 * cannot decode with INTERNAL, but a malformed request is the caller's error (INVALID_ARGUMENT),
 * so the decode error travels to the handler as a marker instead.
 */
export function withMalformedRequests<TDefinition extends Record<string, { requestDeserialize: (bytes: Buffer) => unknown }>>(definition: TDefinition): TDefinition {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(definition)) {
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return method.requestDeserialize(bytes);
        } catch (e) {
          return { [MALFORMED]: e };
        }
      },
    };
  }
  return out as TDefinition;
}

function rejectMalformed(request: unknown): void {
  if (typeof request === 'object' && request !== null && MALFORMED in request) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', 'malformed request: the message does not decode', { cause: (request as { [MALFORMED]: unknown })[MALFORMED] });
  }
}

function guard(deps: ControllerServiceDeps, metadata: ServerUnaryCall<unknown, unknown>['metadata'], request?: unknown): void {
  if (deps.isClosing()) throw new IrisError('IRIS_UNAVAILABLE', 'controller is shutting down');
  if (!bearerTokenMatches(metadata, deps.authToken)) throw new IrisError('IRIS_UNAUTHENTICATED', 'missing or wrong auth token');
  rejectMalformed(request);
}

function unary<TReq, TRes>(deps: ControllerServiceDeps, fn: (req: TReq) => TRes | Promise<TRes>) {
  return (call: ServerUnaryCall<TReq, TRes>, callback: sendUnaryData<TRes>) => {
    Promise.resolve()
      .then(() => {
        guard(deps, call.metadata, call.request);
        return fn(call.request);
      })
      .then(
        (res) => callback(null, res),
        (e: unknown) => callback(grpcStatusOfError(e)),
      );
  };
}

/** Builds the `ControllerService` handlers over the controller state. */
export function createControllerService(deps: ControllerServiceDeps): ControllerServiceServer {
  const { state } = deps;
  return {
    launchJob: unary(deps, (req) => {
      // An unknown bundle would fail every attempt; say so now, while the caller is listening.
      if (req.bundleId !== '' && !deps.bundles.has(req.bundleId)) {
        throw new IrisError('IRIS_NOT_FOUND', `bundle "${req.bundleId}" not found; upload it first (HasBundle/UploadBundle)`);
      }
      const jobId = state.launchJob(req);
      deps.wake();
      return { jobId };
    }),
    getJobStatus: unary(deps, (req) => ({ job: state.getJobStatus(req.jobId, req.includeTasks) })),
    getJobStates: unary(deps, (req) => ({ states: state.getJobStates(req.jobIds) })),
    listJobs: unary(deps, (req) => state.listJobs(req)),
    terminateJob: unary(deps, (req) => {
      state.terminateJob(req.jobId, req.includeChildren ?? true);
      deps.wake();
      return {};
    }),
    listTasks: unary(deps, (req) => ({ tasks: state.listTasks(req.jobId) })),
    getTaskStatus: unary(deps, (req) => ({ task: state.getTaskStatus(req.taskId) })),
    register: unary(deps, (req) => {
      const { workerId } = state.register(req);
      deps.wake();
      return { workerId, accepted: true, reconcileIntervalMs: deps.reconcileIntervalMs };
    }),
    listWorkers: unary(deps, () => ({ workers: workerInfos(state.store) })),
    pushLogs: unary(deps, (req) => {
      if (state.logs.append(req.entries) > 0) {
        state.notify(new Set(req.entries.map((e) => parseTaskId(e.taskId).jobId)));
      }
      return {};
    }),
    fetchLogs: unary(deps, (req) => state.logs.query(req)),
    followLogs: (call) => void followLogs(deps, call),
    registerEndpoint: unary(deps, (req) => ({ endpointId: state.endpoints.register(req, state.now()) })),
    unregisterEndpoint: unary(deps, (req) => {
      state.endpoints.unregister(req.endpointId);
      return {};
    }),
    listEndpoints: unary(deps, (req) => ({ endpoints: state.endpoints.list(req) })),
    hasBundle: unary(deps, (req) => ({ present: deps.bundles.has(req.bundleId) })),
    uploadBundle: (call, callback) => uploadBundle(deps, call, callback),
    fetchBundle: (call) => void fetchBundle(deps, call),
    getClusterStatus: unary(deps, () => {
      const counts: Record<string, number> = {};
      const rows = state.store.db.prepare('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state').all() as { state: JobState; n: number }[];
      for (const r of rows) counts[jobStateName(r.state)] = r.n;
      return { version: deps.version, startedAtMs: deps.startedAtMs, workerCount: state.store.workers().length, jobCounts: counts, dashboardUrl: deps.dashboardUrl ?? '' };
    }),
    healthCheck: unary(deps, () => ({ healthy: true, uptimeMs: Date.now() - deps.startedAtMs, version: deps.version })),
    setUserBudget: unary(deps, (req) => {
      const budget = state.setUserBudget(req);
      deps.wake();
      return { budget };
    }),
    getUserBudget: unary(deps, (req) => ({ budget: state.getUserBudget(req.user) })),
    listUserBudgets: unary(deps, () => ({ budgets: state.listUserBudgets() })),
    reportAttempt: unary(deps, (req) => {
      if (state.reportAttempt(req)) deps.wake();
      return {};
    }),
  };
}

async function followLogs(deps: ControllerServiceDeps, call: ServerWritableStream<LogQuery, FollowLogsResponse>): Promise<void> {
  const gone = new AbortController();
  let drained: (() => void) | undefined;
  const end = () => {
    gone.abort();
    drained?.();
  };
  call.on('cancelled', end);
  // A stream error (client gone) must never become an unhandled 'error' event in the controller.
  call.on('error', end);
  try {
    guard(deps, call.metadata, call.request);
    for await (const msg of followLogEvents(deps.state, call.request, { isClosing: deps.isClosing, signal: gone.signal })) {
      if (call.write(msg) || gone.signal.aborted) continue;
      await new Promise<void>((resolve) => {
        drained = resolve;
        call.once('drain', resolve);
      });
      drained = undefined;
    }
    call.end();
  } catch (e) {
    call.emit('error', grpcStatusOfError(e));
  }
}

function uploadBundle(deps: ControllerServiceDeps, call: ServerReadableStream<BundleChunk, UploadBundleResponse>, callback: sendUnaryData<UploadBundleResponse>): void {
  let size = 0;
  let bundleId = '';
  let upload: BundleUpload | undefined;
  let failed: unknown;
  let answered = false;
  const answer = (e: unknown, response?: UploadBundleResponse): void => {
    if (answered) return;
    answered = true;
    if (e !== null) {
      upload?.abort();
      callback(grpcStatusOfError(e));
    } else callback(null, response);
  };
  // A refusal while chunks are still arriving is answered at once: the rest is never inflated.
  const fail = (e: unknown): void => {
    failed ??= e;
    answer(failed);
  };
  call.on('error', (e: unknown) => {
    failed ??= e;
    upload?.abort();
  });
  try {
    guard(deps, call.metadata);
  } catch (e) {
    failed = e;
  }
  call.on('data', (chunk: BundleChunk) => {
    if (failed) return;
    try {
      rejectMalformed(chunk);
      if (upload === undefined) {
        bundleId = chunk.bundleId;
        if (bundleId === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'bundle_id must be set on the first chunk');
        upload = deps.bundles.startUpload(bundleId);
        upload.refused.catch(fail);
      }
    } catch (e) {
      return fail(e);
    }
    size += chunk.data.length;
    if (size > MAX_UPLOAD_BYTES) return fail(new IrisError('IRIS_BUNDLE_TOO_LARGE', `bundle "${bundleId}" exceeds ${MAX_UPLOAD_BYTES} bytes`, { details: { limit: 'upload-bytes', maxUploadBytes: MAX_UPLOAD_BYTES } }));
    upload.write(chunk.data);
  });
  call.on('end', () => {
    if (failed) return answer(failed);
    if (upload === undefined) return answer(new IrisError('IRIS_INVALID_ARGUMENT', 'bundle_id must be set on the first chunk'));
    upload.finish(deps.state.now()).then(
      () => answer(null, { bundleId }),
      (e: unknown) => answer(e),
    );
  });
}

async function fetchBundle(deps: ControllerServiceDeps, call: ServerWritableStream<FetchBundleRequest, BundleChunk>): Promise<void> {
  let gone = false;
  call.on('error', () => (gone = true));
  call.on('cancelled', () => (gone = true));
  try {
    guard(deps, call.metadata, call.request);
    const archive = await deps.bundles.get(call.request.bundleId, deps.state.now());
    for (let off = 0; off < archive.length || off === 0; off += BUNDLE_CHUNK_BYTES) {
      const data = archive.subarray(off, off + BUNDLE_CHUNK_BYTES);
      if (gone) return;
      if (!call.write({ bundleId: off === 0 ? call.request.bundleId : '', data })) {
        await new Promise<void>((resolve) => {
          call.once('drain', resolve);
          call.once('cancelled', resolve);
        });
      }
      if (archive.length === 0) break;
    }
    call.end();
  } catch (e) {
    call.emit('error', grpcStatusOfError(e));
  }
}
