import { timingSafeEqual } from 'node:crypto';
import { credentials, Metadata, Server, ServerCredentials, status } from '@grpc/grpc-js';
import type { ServiceError, UntypedServiceImplementation } from '@grpc/grpc-js';
import { ControllerServiceService } from '../../src/gen/iris/v1/controller.js';
import type { BundleChunk, FetchBundleRequest, PushLogsRequest, RegisterRequest } from '../../src/gen/iris/v1/controller.js';
import type { LogEntry, RunTaskRequest } from '../../src/gen/iris/v1/types.js';
import { WorkerServiceClient } from '../../src/gen/iris/v1/worker.js';
import type { AttemptObservation, DesiredAttempt, ReconcileResponse } from '../../src/gen/iris/v1/worker.js';

/**
 * A real gRPC server on 127.0.0.1:0 speaking the worker-facing half of `ControllerService`
 * (Register, PushLogs, FetchBundle) and recording what workers send, plus a `Reconcile` driver, so
 * worker tests control every desired set themselves.
 */
export interface FakeController extends AsyncDisposable {
  readonly address: string;
  readonly registrations: RegisterRequest[];
  readonly logs: LogEntry[];
  readonly bundles: Map<string, Buffer>;
  readonly bundleFetches: string[];
  /** Sends one Reconcile to a registered worker. */
  reconcile(workerId: string, desired: DesiredAttempt[], token?: string): Promise<ReconcileResponse>;
  /** Reconciles every `intervalMs` until `done` holds for the observations; returns the last ones. */
  reconcileUntil(
    workerId: string,
    desired: DesiredAttempt[] | (() => DesiredAttempt[]),
    done: (observed: AttemptObservation[]) => boolean,
    options?: { timeoutMs?: number; intervalMs?: number },
  ): Promise<AttemptObservation[]>;
  /** Calls the worker's HealthCheck. */
  healthCheck(workerId: string): Promise<{ healthy: boolean; uptimeMs: number; runningAttempts: number }>;
  /** Polls `check` until it holds. */
  waitFor(check: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface FakeControllerOptions {
  /** Require this bearer token on every call. */
  token?: string;
  /** Answer this many Register calls with UNAVAILABLE first. */
  failRegistrations?: number;
}

export async function startFakeController(options: FakeControllerOptions = {}): Promise<FakeController> {
  const registrations: RegisterRequest[] = [];
  const logs: LogEntry[] = [];
  const bundles = new Map<string, Buffer>();
  const bundleFetches: string[] = [];
  const seen = new Set<string>();
  let failures = options.failRegistrations ?? 0;
  const clients = new Map<string, InstanceType<typeof WorkerServiceClient>>();
  const authorized = (metadata: Metadata): boolean => {
    if (options.token === undefined) return true;
    const got = Buffer.from(String(metadata.get('authorization')[0] ?? ''));
    const want = Buffer.from(`Bearer ${options.token}`);
    return got.length === want.length && timingSafeEqual(got, want);
  };
  const unauthenticated = { code: status.UNAUTHENTICATED, details: 'missing or wrong token' };
  const impl: UntypedServiceImplementation = {
    register(call: { request: RegisterRequest; metadata: Metadata }, callback: (e: Partial<ServiceError> | null, r?: unknown) => void) {
      if (!authorized(call.metadata)) return callback(unauthenticated);
      if (failures > 0) {
        failures -= 1;
        return callback({ code: status.UNAVAILABLE, details: 'controller starting' });
      }
      registrations.push(call.request);
      callback(null, { workerId: call.request.workerId, accepted: true, reconcileIntervalMs: 1000 });
    },
    pushLogs(call: { request: PushLogsRequest; metadata: Metadata }, callback: (e: Partial<ServiceError> | null, r?: unknown) => void) {
      if (!authorized(call.metadata)) return callback(unauthenticated);
      for (const entry of call.request.entries) {
        const key = `${entry.attemptUid}/${entry.seq}`;
        if (seen.has(key)) continue; // as the real store: UNIQUE(attempt_uid, seq)
        seen.add(key);
        logs.push(entry);
      }
      callback(null, {});
    },
    fetchBundle(call: { request: FetchBundleRequest; metadata: Metadata; write(c: BundleChunk): void; end(): void; emit(e: string, err: unknown): void }) {
      bundleFetches.push(call.request.bundleId);
      const archive = bundles.get(call.request.bundleId);
      if (archive === undefined) {
        call.emit('error', { code: status.NOT_FOUND, details: `bundle "${call.request.bundleId}" not found` });
        return;
      }
      for (let offset = 0; offset < archive.length; offset += 1024 * 1024) {
        call.write({ bundleId: call.request.bundleId, data: archive.subarray(offset, offset + 1024 * 1024) });
      }
      call.end();
    },
  };
  const server = new Server();
  server.addService(ControllerServiceService, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err === null ? resolve(p) : reject(err))),
  );
  const clientFor = (workerId: string): InstanceType<typeof WorkerServiceClient> => {
    const registration = [...registrations].reverse().find((r) => r.workerId === workerId);
    if (registration === undefined) throw new Error(`worker "${workerId}" has not registered`);
    let client = clients.get(registration.address);
    if (client === undefined) {
      client = new WorkerServiceClient(registration.address, credentials.createInsecure());
      clients.set(registration.address, client);
    }
    return client;
  };
  const waitFor = async (check: () => boolean, timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const reconcile = (workerId: string, desired: DesiredAttempt[], token = options.token): Promise<ReconcileResponse> =>
    new Promise((resolve, reject) => {
      const metadata = new Metadata();
      if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
      // No liveness bound: the worker starts what it is given (its start fence stays open).
      clientFor(workerId).reconcile({ workerId, desired, acceptedWorkerTimeMs: 0, livenessGraceMs: 0 }, metadata, { deadline: Date.now() + 10_000 }, (err, res) =>
        err === null ? resolve(res) : reject(err),
      );
    });
  const close = async (): Promise<void> => {
    for (const client of clients.values()) client.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  };
  const healthCheck = (workerId: string): Promise<{ healthy: boolean; uptimeMs: number; runningAttempts: number }> =>
    new Promise((resolve, reject) => {
      const metadata = new Metadata();
      if (options.token !== undefined) metadata.set('authorization', `Bearer ${options.token}`);
      clientFor(workerId).healthCheck({}, metadata, { deadline: Date.now() + 10_000 }, (err, res) => (err === null ? resolve(res) : reject(err)));
    });
  return {
    address: `127.0.0.1:${port}`,
    healthCheck,
    registrations,
    logs,
    bundles,
    bundleFetches,
    reconcile,
    waitFor,
    async reconcileUntil(workerId, desired, done, opts = {}) {
      const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
      for (;;) {
        const observed = (await reconcile(workerId, typeof desired === 'function' ? desired() : desired)).observed;
        if (done(observed)) return observed;
        if (Date.now() > deadline) throw new Error(`reconcile condition not met; last observations: ${JSON.stringify(observed)}`);
        await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
      }
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

let uidCounter = 0;

/** A fresh 16-hex attempt uid. */
export function nextUid(): string {
  uidCounter += 1;
  return `${process.pid.toString(16).padStart(8, '0')}${uidCounter.toString(16).padStart(8, '0')}`.slice(-16);
}

/** A `RunTaskRequest` for `argv` with sensible defaults. */
export function runSpec(argv: string[], overrides: Partial<RunTaskRequest> = {}): RunTaskRequest {
  const attemptUid = overrides.attemptUid ?? nextUid();
  return {
    jobId: '/alice/job',
    taskToken: '',
    taskId: '/alice/job/0',
    taskIndex: 0,
    numTasks: 1,
    attemptId: 0,
    attemptUid,
    user: 'alice',
    bundleId: '',
    ports: [],
    constraints: [],
    timeoutMs: 0,
    environment: { envVars: {}, dependencyGroups: [], npmPackages: [] },
    ...overrides,
    entrypoint: { setupCommands: [], run: { argv }, workdirFiles: {}, inPlace: false, workdir: '', ...overrides.entrypoint },
  };
}

/** Desired intent "run" with the spec (first dispatch). */
export function runWithSpec(spec: RunTaskRequest): DesiredAttempt {
  return { attemptUid: spec.attemptUid, taskId: spec.taskId, attemptId: spec.attemptId, intent: { $case: 'run', value: { request: spec } } };
}

/** Desired intent "run" without the spec (keep going). */
export function keepRunning(spec: Pick<RunTaskRequest, 'attemptUid' | 'taskId' | 'attemptId'>): DesiredAttempt {
  return { attemptUid: spec.attemptUid, taskId: spec.taskId, attemptId: spec.attemptId, intent: { $case: 'run', value: {} } };
}

/** Desired intent "stop". */
export function stopWith(spec: Pick<RunTaskRequest, 'attemptUid' | 'taskId' | 'attemptId'>, reason: number): DesiredAttempt {
  return { attemptUid: spec.attemptUid, taskId: spec.taskId, attemptId: spec.attemptId, intent: { $case: 'stop', value: reason } };
}
