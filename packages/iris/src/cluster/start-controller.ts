import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { marinPrefix } from '@marin/rigging';
import { z } from 'zod';
import { resolveBundleLimits } from '../bundle/bundle-limits.js';
import { startDashboardServer } from '../dashboard/dashboard-server.js';
import { IrisError } from '../errors.js';
import type { AutoscalerStatus } from '../autoscaler/autoscaler.js';
import { restoreCheckpointIfNeeded, writeCheckpoint } from '../controller/store/controller-checkpoint.js';
import type { CheckpointInfo } from '../controller/store/controller-checkpoint.js';
import { ClusterServiceService } from '../gen/iris/v1/cluster.js';
import { ControllerServiceService } from '../gen/iris/v1/controller.js';
import type { AuthMode } from '../auth/identity.js';
import { BundleStore } from '../controller/store/bundle-store.js';
import { CallerAuth } from '../controller/services/caller-auth.js';
import { IdentityStore } from '../controller/store/identity-store.js';
import { createClusterService } from '../controller/services/cluster-service.js';
import { WorkerProcessRelay } from '../controller/services/worker-process.js';
import { LogArchive } from '../controller/log-archive.js';
import { LogArchiver } from '../controller/log-archiver.js';
import { ControlLoop } from '../controller/control-loop.js';
import { queryState } from '../controller/store/state-query.js';
import { ProcessIntrospection } from '../wire/process-introspection.js';
import { checkExposure } from './exposure.js';
import { createControllerService, withMalformedRequests } from '../controller/services/controller-service.js';
import { ControllerState } from '../controller/controller-state.js';
import { openControllerDatabase } from '../controller/store/database.js';
import type { ControllerDatabase } from '../controller/store/database.js';

/** Version reported by `GetClusterStatus` and `HealthCheck`. */
export const IRIS_VERSION = '0.1.0';

const ms = z.number().int().positive();
/** The shortest liveness grace a controller accepts: workers need room for a task lease well below it. */
const MIN_LIVENESS_GRACE_MS = 1000;

/** Options of {@link startController}, validated with zod. Env overrides apply when an option is unset. */
export const ControllerOptionsSchema = z.object({
  /** Directory for `controller.sqlite3` and `bundles/`; unset = an in-memory DB and a temp bundle dir. */
  stateDir: z.string().min(1).optional(),
  /** `host:port` to serve on. @default "127.0.0.1:0" */
  bind: z.string().regex(/^.+:\d+$/, { message: 'bind must be host:port' }).default('127.0.0.1:0'),
  /** `host:port` of the web dashboard (its own HTTP port); null serves none. @default "127.0.0.1:0" */
  dashboardBind: z.string().regex(/^.+:\d+$/, { message: 'dashboardBind must be host:port' }).nullable().default('127.0.0.1:0'),
  /**
   * The prefixes the dashboard's experiments view may read (local paths or URLs); any other prefix is
   * refused without being touched.
   * @default `IRIS_EXPERIMENT_PREFIXES` (comma-separated), else the local cluster's prefix (`marinPrefix()`: `MARIN_PREFIX`, …, `/tmp/marin`)
   */
  experimentPrefixes: z.array(z.string().min(1)).optional(),
  /** Host names the dashboard answers to besides loopback and its bound host (`Host` header check). @default `IRIS_DASHBOARD_HOSTS` (comma-separated), else none */
  dashboardHosts: z.array(z.string().min(1)).optional(),
  /**
   * Serve on a non-loopback address without an auth token. Without it, such a controller (or
   * dashboard) refuses to start: anyone who can reach the port could run jobs as any user.
   * @default false
   */
  insecure: z.boolean().default(false),
  /**
   * How long the endpoint proxy (`/proxy/<endpoint>/…` on the dashboard port) waits for a backend's
   * response headers, and then between chunks of its body; past it the caller gets 504. Proxied gRPC
   * calls are bounded by their own deadline instead. @default 120000
   */
  endpointProxyTimeoutMs: ms.optional(),
  /** The dashboard's built page assets. @default the package's dist/dashboard */
  dashboardAssetsDir: z.string().min(1).optional(),
  /**
   * Shared token: required from every caller (`shared-token` mode) or from workers only
   * (`api-keys` mode), and sent to workers. @default IRIS_AUTH_TOKEN when set
   */
  authToken: z.string().min(1).optional(),
  /**
   * How callers authenticate: `shared-token` (one token, or none at all, for a single-user
   * cluster) or `api-keys` (per-user API keys with roles; needs `authToken` for the workers).
   * @default IRIS_AUTH_MODE, else "shared-token"
   */
  authMode: z.enum(['shared-token', 'api-keys']).optional(),
  /**
   * With `api-keys` and no user yet: create this admin and write its API key to
   * `<stateDir>/bootstrap-admin.key` (mode 0600; never logged). @default IRIS_BOOTSTRAP_ADMIN
   */
  bootstrapAdmin: z.string().min(1).optional(),
  /** @default 1000 (IRIS_RECONCILE_INTERVAL_MS) */
  reconcileIntervalMs: ms.optional(),
  /** @default 3000 (IRIS_RECONCILE_RPC_TIMEOUT_MS) */
  reconcileRpcTimeoutMs: ms.optional(),
  /** @default 50000 (IRIS_WORKER_UNREACHABLE_GRACE_MS) */
  workerUnreachableGraceMs: z.number().int().nonnegative().optional(),
  /** @default 3 (IRIS_MIN_UNREACHABLE_FAILURES) */
  minUnreachableFailures: z.number().int().positive().optional(),
  /** @default 8 */
  maxBuildingTasks: z.number().int().positive().optional(),
  /** @default 4 */
  maxAssignmentsPerWorker: z.number().int().positive().optional(),
  /** Terminal jobs older than this are pruned. @default 7 days */
  jobRetentionMs: ms.default(7 * 24 * 3600 * 1000),
  /** Start from an empty database, deleting the old one. @default false */
  fresh: z.boolean().default(false),
  /** Tick on a timer; false = only when `tick()` is called (manual-tick tests). @default true */
  autoTick: z.boolean().default(true),
  /** Injected clock. @default Date.now */
  clock: z.custom<() => number>((v) => typeof v === 'function').optional(),
  /** Where operational warnings go. @default console.warn */
  warn: z.custom<(message: string) => void>((v) => typeof v === 'function').optional(),
  /**
   * Caps on an uploaded bundle's inflated bytes and entry count, checked while it streams in.
   * @default `IRIS_BUNDLE_MAX_INFLATED_BYTES` / `IRIS_BUNDLE_MAX_ENTRIES`, else 1 GiB and 100,000
   */
  bundleLimits: z.object({ maxInflatedBytes: z.number().int().positive(), maxEntries: z.number().int().positive() }).partial().optional(),
  /**
   * Any rigging URL (`gs://bucket/iris`) for checkpoints. With `stateDir`, a missing local database
   * or one failing `PRAGMA quick_check` is restored from the newest checkpoint at start.
   */
  remoteStateDir: z.string().min(1).optional(),
  /**
   * Where task logs are archived when their job ends: any rigging URL (`gs://bucket/iris-logs`) or a
   * local directory (`log_archive` in the cluster config). `iris job logs` and the dashboard read it
   * once the lines are pruned from the database. Unset: logs live only in the database.
   * @default IRIS_LOG_ARCHIVE when set
   */
  logArchive: z.string().min(1).optional(),
  /** Archived lines stay in the database this long after their job ended. @default 1 day */
  logRetentionMs: z.number().int().nonnegative().default(24 * 3600 * 1000),
  /** How long after a job ends its logs are archived (its attempts' last lines arrive first). @default 5000 */
  logArchiveSettleMs: z.number().int().nonnegative().default(5000),
  /** Time between log archive passes. @default 5000 */
  logArchiveIntervalMs: z.number().int().positive().default(5000),
  /** Checkpoint every this many ms while running; 0 = only on demand. @default 0 */
  checkpointIntervalMs: z.number().int().nonnegative().default(0),
  /** Runs once the controller serves (the autoscaler); its `status` feeds `GetAutoscalerStatus`, its `close` runs first on close. */
  attach: z.custom<(controller: ControllerHandle) => Promise<ControllerAttachment>>((v) => typeof v === 'function').optional(),
});

/** Something running beside the controller, started by `attach` (the autoscaler). */
export interface ControllerAttachment {
  status(): AutoscalerStatus;
  close(): Promise<void>;
}

/** What callers pass to {@link startController}. */
export type ControllerOptions = z.input<typeof ControllerOptionsSchema>;

/** A running controller. */
export interface ControllerHandle extends AsyncDisposable {
  /** `127.0.0.1:<port>` (or the bound host): where a client on this machine dials. */
  readonly address: string;
  /** Where it really listens, `host:port` (`0.0.0.0:10000` for all interfaces). */
  readonly bindAddress: string;
  readonly port: number;
  /** Where the dashboard really listens, or null when it serves none. */
  readonly dashboardBindAddress: string | null;
  /** The web dashboard's `http://host:port/`, or null when it serves none. */
  readonly dashboardUrl: string | null;
  /** `none`, `shared-token` or `api-keys`. */
  readonly authMode: AuthMode;
  /** Where the bootstrap admin's key was written at this start, if it was. */
  readonly bootstrapKeyFile: string | null;
  /** The state machine, for tests and in-process tooling. */
  readonly state: ControllerState;
  /** Runs one control tick now and waits for it. */
  tick(): Promise<void>;
  /**
   * Runs one log archive pass now: archives the ended jobs that are due, then prunes archived lines
   * past `logRetentionMs`. Without a `logArchive`, does nothing.
   */
  archiveLogs(): Promise<{ archived: number; pruned: number }>;
  /** Control ticks run since start (an idle controller backs off to one a second). */
  tickCount(): number;
  /**
   * Writes a checkpoint to `remoteStateDir` now.
   * @throws {IrisError} IRIS_FAILED_PRECONDITION without a `remoteStateDir`; IRIS_UNAVAILABLE when the upload fails.
   */
  checkpoint(): Promise<CheckpointInfo>;
  /** The attachment's status (the autoscaler), when there is one. */
  autoscalerStatus(): AutoscalerStatus | undefined;
  /** Stops serving, waits for the tick in flight, closes the DB. Idempotent. */
  close(): Promise<void>;
}

function envInt(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `${name}="${v}" is not a non-negative integer`);
  return n;
}

/**
 * Starts a controller: opens (or creates) its SQLite state, serves `ControllerService` over gRPC
 * and runs the control loop. A restarted controller resumes from its state dir.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for bad options; IRIS_UNAVAILABLE if the address cannot be bound.
 */
export async function startController(options: ControllerOptions = {}): Promise<ControllerHandle> {
  const parsed = ControllerOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new IrisError('IRIS_INVALID_ARGUMENT', `controller option ${issue?.path.join('.')}: ${issue?.message}`, { details: { issues: parsed.error.issues } });
  }
  const o = parsed.data;
  const authToken = o.authToken ?? (process.env['IRIS_AUTH_TOKEN'] || undefined);
  const requestedMode = o.authMode ?? (process.env['IRIS_AUTH_MODE'] || 'shared-token');
  if (requestedMode !== 'shared-token' && requestedMode !== 'api-keys') throw new IrisError('IRIS_INVALID_ARGUMENT', `IRIS_AUTH_MODE="${requestedMode}" must be "shared-token" or "api-keys"`);
  if (requestedMode === 'api-keys' && !authToken) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', 'auth mode "api-keys" needs a shared token for the workers; set IRIS_AUTH_TOKEN (or authToken)');
  }
  const authMode: AuthMode = requestedMode === 'api-keys' ? 'api-keys' : authToken ? 'shared-token' : 'none';
  const bootstrapAdmin = o.bootstrapAdmin ?? (process.env['IRIS_BOOTSTRAP_ADMIN'] || undefined);
  const introspection = new ProcessIntrospection('controller', IRIS_VERSION);
  const printWarning = o.warn ?? ((m: string) => console.warn(`[iris controller] ${m}`));
  // Every warning is also kept for `iris process logs`.
  const warn = (m: string) => {
    introspection.log('warn', m);
    printWarning(m);
  };
  checkExposure({ bind: o.bind, dashboardBind: o.dashboardBind, authToken, insecure: o.insecure, warn });
  const reconcileIntervalMs = o.reconcileIntervalMs ?? envInt('IRIS_RECONCILE_INTERVAL_MS') ?? 1000;
  const reconcileRpcTimeoutMs = o.reconcileRpcTimeoutMs ?? envInt('IRIS_RECONCILE_RPC_TIMEOUT_MS') ?? 3000;
  const workerUnreachableGraceMs = o.workerUnreachableGraceMs ?? envInt('IRIS_WORKER_UNREACHABLE_GRACE_MS') ?? 50_000;
  // Workers keep their task lease to a third of this grace (they learn it from every Reconcile); a
  // grace too short to hold any lease, or 0 (which workers read as "no bound"), would let a stalled
  // worker's bodies run again elsewhere before their outcome is known.
  if (workerUnreachableGraceMs < MIN_LIVENESS_GRACE_MS) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `workerUnreachableGraceMs (IRIS_WORKER_UNREACHABLE_GRACE_MS) is ${workerUnreachableGraceMs} ms; it must be at least ${MIN_LIVENESS_GRACE_MS} ms`);
  }
  const minUnreachableFailures = o.minUnreachableFailures ?? envInt('IRIS_MIN_UNREACHABLE_FAILURES') ?? 3;
  const bundleLimits = resolveBundleLimits(o.bundleLimits);
  const configuredPrefixes = o.experimentPrefixes ?? (process.env['IRIS_EXPERIMENT_PREFIXES'] || undefined)?.split(',').map((p) => p.trim()).filter((p) => p !== '');
  let defaultPrefixes: Promise<readonly string[]> | undefined;
  const experimentPrefixes = (): Promise<readonly string[]> =>
    configuredPrefixes !== undefined && configuredPrefixes.length > 0 ? Promise.resolve(configuredPrefixes) : (defaultPrefixes ??= marinPrefix().then((p) => [p]));

  let tempDir: string | undefined;
  let db: ControllerDatabase;
  let bundleDir: string;
  if (o.stateDir) {
    mkdirSync(o.stateDir, { recursive: true });
    const dbPath = join(o.stateDir, 'controller.sqlite3');
    if (o.fresh) for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
    else if (o.remoteStateDir) await restoreCheckpointIfNeeded({ dbPath, remoteStateDir: o.remoteStateDir, warn: (m) => (o.warn ?? console.warn)(m) });
    db = openControllerDatabase(dbPath);
    bundleDir = join(o.stateDir, 'bundles');
  } else {
    tempDir = mkdtempSync(join(tmpdir(), 'iris-controller-'));
    db = openControllerDatabase(':memory:');
    bundleDir = join(tempDir, 'bundles');
  }
  const identities = new IdentityStore(db);
  const logArchivePrefix = o.logArchive ?? (process.env['IRIS_LOG_ARCHIVE'] || undefined);
  const state: ControllerState = new ControllerState({
    // Read only once ticking starts, after `auth` below exists.
    taskToken: (jobId: string): string => auth.taskToken(jobId),
    db,
    clock: o.clock,
    liveness: { workerUnreachableGraceMs, minUnreachableFailures },
    limits: { maxBuildingTasks: o.maxBuildingTasks, maxAssignmentsPerWorker: o.maxAssignmentsPerWorker },
    warn,
    logArchive: logArchivePrefix === undefined ? undefined : new LogArchive(logArchivePrefix),
  });
  const archiver = state.archive
    ? new LogArchiver({ state, settleMs: o.logArchiveSettleMs, retentionMs: o.logRetentionMs, intervalMs: o.logArchiveIntervalMs, warn })
    : undefined;
  const auth: CallerAuth = new CallerAuth({ mode: authMode, sharedToken: authToken, identities, store: state.store, now: () => state.now() });
  let bootstrapKeyFile: string | null = null;
  if (authMode === 'api-keys' && bootstrapAdmin !== undefined && identities.countUsers() === 0) {
    const created = identities.createKey({ user: bootstrapAdmin, role: 'admin', name: 'bootstrap', createdBy: 'controller', nowMs: state.now() });
    identities.audit({ atMs: state.now(), actor: 'controller', action: 'user.create', target: bootstrapAdmin, details: { role: 'admin', bootstrap: true } });
    identities.audit({ atMs: state.now(), actor: 'controller', action: 'key.create', target: created.row.key_id, details: { user: bootstrapAdmin, name: 'bootstrap' } });
    bootstrapKeyFile = join(o.stateDir ?? tempDir!, 'bootstrap-admin.key');
    writeFileSync(bootstrapKeyFile, `${created.key}\n`, { mode: 0o600 });
    warn(`created admin "${bootstrapAdmin}"; its API key is in ${bootstrapKeyFile} (run \`iris login --key-file ${bootstrapKeyFile}\`, then delete the file)`);
  }
  state.resetLiveness();
  const loop = new ControlLoop(state, {
    reconcileIntervalMs,
    reconcileRpcTimeoutMs,
    livenessGraceMs: workerUnreachableGraceMs,
    jobRetentionMs: o.jobRetentionMs,
    authToken,
    onError: (e) => warn(`control tick failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
  });
  let closing = false;
  const startedAtMs = Date.now();
  const wake = () => (o.autoTick ? loop.wake() : undefined);
  let attachment: ControllerAttachment | undefined;
  const dashboard =
    o.dashboardBind === null
      ? undefined
      : await startDashboardServer({
          bind: o.dashboardBind,
          assetsDir: o.dashboardAssetsDir,
          authToken,
          auth,
          identities,
          state,
          wake,
          version: IRIS_VERSION,
          startedAtMs,
          autoscalerStatus: () => attachment?.status(),
          experimentPrefixes,
          jobRetentionMs: o.jobRetentionMs,
          allowedHosts: o.dashboardHosts ?? (process.env['IRIS_DASHBOARD_HOSTS'] || undefined)?.split(',').map((h) => h.trim()).filter((h) => h !== ''),
          isClosing: () => closing,
          proxyTimeoutMs: o.endpointProxyTimeoutMs,
        }).catch((e: unknown) => {
          db.close();
          throw e;
        });
  const server = new Server();
  server.addService(
    withMalformedRequests(ControllerServiceService),
    createControllerService({
      state,
      bundles: new BundleStore(db, bundleDir, bundleLimits),
      wake,
      auth,
      identities,
      version: IRIS_VERSION,
      startedAtMs,
      reconcileIntervalMs,
      isClosing: () => closing,
      dashboardUrl: dashboard?.url,
      workerToken: authToken,
    }),
  );
  const checkpoint = (): Promise<CheckpointInfo> => {
    if (!o.remoteStateDir) return Promise.reject(new IrisError('IRIS_FAILED_PRECONDITION', 'the controller has no remote state dir; start it with remoteStateDir (remote_state_dir in the cluster config)'));
    return writeCheckpoint({ db, remoteStateDir: o.remoteStateDir, nowMs: state.now() });
  };
  server.addService(
    ClusterServiceService,
    createClusterService({
      auth,
      autoscalerStatus: () => attachment?.status(),
      checkpoint,
      queryState: (q) => queryState(db, { sql: q.sql, maxRows: q.maxRows, timeoutMs: q.timeoutMs }),
      introspection,
      workers: new WorkerProcessRelay((id) => state.store.worker(id)?.address, authToken),
    }),
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(o.bind, ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(new IrisError('IRIS_UNAVAILABLE', `cannot bind controller to "${o.bind}"`, { cause: e })) : resolve(p),
    ),
  ).catch(async (e: unknown) => {
    introspection.close();
    await dashboard?.close();
    db.close();
    throw e;
  });
  const host = o.bind.slice(0, o.bind.lastIndexOf(':'));
  if (o.autoTick) loop.start();
  archiver?.start();
  const checkpointTimer =
    o.remoteStateDir && o.checkpointIntervalMs > 0
      ? setInterval(() => void checkpoint().catch((e: unknown) => warn(`checkpoint failed: ${e instanceof Error ? e.message : String(e)}`)), o.checkpointIntervalMs)
      : undefined;

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      closing = true;
      introspection.close();
      if (checkpointTimer) clearInterval(checkpointTimer);
      await attachment?.close();
      await dashboard?.close();
      await loop.close();
      await archiver?.close();
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 2000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      db.close();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    })();
    return closed;
  };
  const handle: ControllerHandle = {
    address: `${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`,
    bindAddress: `${host}:${port}`,
    port,
    dashboardBindAddress: dashboard?.bindAddress ?? null,
    dashboardUrl: dashboard?.url ?? null,
    authMode,
    bootstrapKeyFile,
    state,
    tick: () => loop.tick(),
    archiveLogs: () => archiver?.pass() ?? Promise.resolve({ archived: 0, pruned: 0 }),
    tickCount: () => loop.ticks,
    checkpoint,
    autoscalerStatus: () => attachment?.status(),
    close,
    [Symbol.asyncDispose]: close,
  };
  if (o.attach) {
    try {
      attachment = await o.attach(handle);
    } catch (e) {
      await close();
      throw e;
    }
  }
  return handle;
}
