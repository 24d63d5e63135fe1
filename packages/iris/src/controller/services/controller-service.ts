import type { Metadata, sendUnaryData, ServerUnaryCall, ServerWritableStream, ServerReadableStream } from '@grpc/grpc-js';
import { AUTHORIZATION_METADATA_KEY } from '../../wire/token-auth.js';
import type { CallerIdentity } from '../../auth/identity.js';
import { IrisError } from '../../errors.js';
import { grpcStatusOfError } from '../../wire/grpc-errors.js';
import type { BundleChunk, ControllerServiceServer, ExecInTaskRequest, FetchBundleRequest, FollowLogsResponse, LogQuery, UploadBundleResponse } from '../../gen/iris/v1/controller.js';
import type { ExecOutput } from '../../gen/iris/v1/types.js';
import { authorizeMethod } from './access-policy.js';
import type { ControllerMethod } from './access-policy.js';
import type { BundleStore, BundleUpload } from '../store/bundle-store.js';
import { jobCountsByState } from '../store/queries.js';
import type { CallerAuth } from './caller-auth.js';
import { identityHandlers } from './identity-service.js';
import type { IdentityStore } from '../store/identity-store.js';
import { guardedLaunch, guardedSetBudget, guardedTerminate, ownsEndpoint, ownsTask } from './guarded-actions.js';
import type { ControllerState } from '../controller-state.js';
import { parseTaskId } from '../../core/job-names.js';
import { followLogEvents } from './log-follow.js';
import { queryLogs } from '../log-archiver.js';
import { execTarget, relayExec } from './task-exec.js';
import { jobStateName } from '../../wire/task-states.js';
import { workerInfos } from '../status-views.js';

/** Bundles travel in chunks of at most this many bytes. */
export const BUNDLE_CHUNK_BYTES = 1024 * 1024;
const MAX_UPLOAD_BYTES = 200 * 1024 * 1024;

/** What the gRPC service needs from the rest of the controller. */
export interface ControllerServiceDeps {
  readonly state: ControllerState;
  readonly bundles: BundleStore;
  /** Wakes the control loop (after LaunchJob, TerminateJob, Register). */
  readonly wake: () => void;
  /** Who each caller is (the auth mode, the shared token, API keys, job tokens). */
  readonly auth: CallerAuth;
  readonly identities: IdentityStore;
  readonly version: string;
  readonly startedAtMs: number;
  readonly reconcileIntervalMs: number;
  /** True once shutdown began: calls get UNAVAILABLE. */
  readonly isClosing: () => boolean;
  /** The dashboard's URL, reported by `GetClusterStatus`; unset when none is served. */
  readonly dashboardUrl?: string | undefined;
  /** The token the controller presents to workers (for `ExecInTask`), when auth is on. */
  readonly workerToken?: string | undefined;
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

/** The bearer credential a call carries, if any. */
export function bearerOf(metadata: Metadata): string | undefined {
  const sent = metadata.get(AUTHORIZATION_METADATA_KEY)[0];
  return typeof sent === 'string' && sent.startsWith('Bearer ') ? sent.slice('Bearer '.length) : undefined;
}

function guard(deps: ControllerServiceDeps, method: ControllerMethod, metadata: Metadata, request?: unknown): CallerIdentity {
  if (deps.isClosing()) throw new IrisError('IRIS_UNAVAILABLE', 'controller is shutting down');
  const identity = deps.auth.authenticate(bearerOf(metadata));
  authorizeMethod(identity, method);
  rejectMalformed(request);
  return identity;
}

function unary<TReq, TRes>(deps: ControllerServiceDeps, method: ControllerMethod, fn: (req: TReq, identity: CallerIdentity) => TRes | Promise<TRes>) {
  return (call: ServerUnaryCall<TReq, TRes>, callback: sendUnaryData<TRes>) => {
    Promise.resolve()
      .then(() => fn(call.request, guard(deps, method, call.metadata, call.request)))
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
    launchJob: unary(deps, 'launchJob', (req, identity) => {
      // An unknown bundle would fail every attempt; say so now, while the caller is listening.
      if (req.bundleId !== '' && !deps.bundles.has(req.bundleId)) {
        throw new IrisError('IRIS_NOT_FOUND', `bundle "${req.bundleId}" not found; upload it first (HasBundle/UploadBundle)`);
      }
      const jobId = guardedLaunch(state, identity, req);
      deps.wake();
      return { jobId };
    }),
    getJobStatus: unary(deps, 'getJobStatus', (req) => ({ job: state.getJobStatus(req.jobId, req.includeTasks) })),
    getJobStates: unary(deps, 'getJobStates', (req) => ({ states: state.getJobStates(req.jobIds) })),
    listJobs: unary(deps, 'listJobs', (req) => state.listJobs(req)),
    terminateJob: unary(deps, 'terminateJob', (req, identity) => {
      guardedTerminate(state, deps.identities, identity, req.jobId, req.includeChildren ?? true);
      deps.wake();
      return {};
    }),
    listTasks: unary(deps, 'listTasks', (req) => ({ tasks: state.listTasks(req.jobId) })),
    getTaskStatus: unary(deps, 'getTaskStatus', (req) => ({ task: state.getTaskStatus(req.taskId) })),
    register: unary(deps, 'register', (req) => {
      const { workerId } = state.register(req);
      deps.wake();
      return { workerId, accepted: true, reconcileIntervalMs: deps.reconcileIntervalMs };
    }),
    listWorkers: unary(deps, 'listWorkers', () => ({ workers: workerInfos(state.store) })),
    pushLogs: unary(deps, 'pushLogs', (req) => {
      if (state.logs.append(req.entries) > 0) {
        state.notify(new Set(req.entries.map((e) => parseTaskId(e.taskId).jobId)));
      }
      return {};
    }),
    fetchLogs: unary(deps, 'fetchLogs', (req) => queryLogs(state, req)),
    followLogs: (call) => void followLogs(deps, call),
    execInTask: (call) => void execInTask(deps, call),
    registerEndpoint: unary(deps, 'registerEndpoint', (req, identity) => {
      ownsTask(state, identity, req.taskId);
      return { endpointId: state.endpoints.register(req, state.now()) };
    }),
    unregisterEndpoint: unary(deps, 'unregisterEndpoint', (req, identity) => {
      ownsEndpoint(state, identity, req.endpointId);
      state.endpoints.unregister(req.endpointId);
      return {};
    }),
    listEndpoints: unary(deps, 'listEndpoints', (req) => ({ endpoints: state.endpoints.list(req) })),
    hasBundle: unary(deps, 'hasBundle', (req) => ({ present: deps.bundles.has(req.bundleId) })),
    uploadBundle: (call, callback) => uploadBundle(deps, call, callback),
    fetchBundle: (call) => void fetchBundle(deps, call),
    getClusterStatus: unary(deps, 'getClusterStatus', () => {
      const counts: Record<string, number> = {};
      const rows = jobCountsByState(state.store);
      for (const r of rows) counts[jobStateName(r.state)] = r.n;
      return { version: deps.version, startedAtMs: deps.startedAtMs, workerCount: state.store.workers().length, jobCounts: counts, dashboardUrl: deps.dashboardUrl ?? '' };
    }),
    healthCheck: unary(deps, 'healthCheck', () => ({ healthy: true, uptimeMs: Date.now() - deps.startedAtMs, version: deps.version })),
    setUserBudget: unary(deps, 'setUserBudget', (req, identity) => {
      const budget = guardedSetBudget(state, deps.identities, identity, req);
      deps.wake();
      return { budget };
    }),
    getUserBudget: unary(deps, 'getUserBudget', (req) => ({ budget: state.getUserBudget(req.user) })),
    listUserBudgets: unary(deps, 'listUserBudgets', () => ({ budgets: state.listUserBudgets() })),
    reportAttempt: unary(deps, 'reportAttempt', (req, identity) => {
      // A task's supervisor reports with the task's own token: only its own job's attempts.
      if (identity.role === 'job' && state.store.attemptByUid(req.attemptUid)?.task_id.startsWith(`${identity.jobId ?? ''}/`) !== true) {
        throw new IrisError('IRIS_PERMISSION_DENIED', 'a job token may only report its own attempts');
      }
      if (state.reportAttempt(req)) deps.wake();
      return {};
    }),
    ...identityHandlers((method, fn) => unary(deps, method, fn), { auth: deps.auth, identities: deps.identities, now: () => state.now() }),
  };
}

async function execInTask(deps: ControllerServiceDeps, call: ServerWritableStream<ExecInTaskRequest, ExecOutput>): Promise<void> {
  call.on('error', () => undefined);
  try {
    const identity = guard(deps, 'execInTask', call.metadata, call.request);
    await relayExec(call, execTarget(deps.state, deps.identities, identity, call.request), deps.workerToken);
  } catch (e) {
    call.emit('error', grpcStatusOfError(e));
  }
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
    guard(deps, 'followLogs', call.metadata, call.request);
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
    guard(deps, 'uploadBundle', call.metadata);
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
    guard(deps, 'fetchBundle', call.metadata, call.request);
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
