import { randomBytes } from 'node:crypto';
import { accessSync, constants as fsConstants, statfsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, freemem, hostname, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { ExponentialBackoff } from '@marin/rigging';
import { z } from 'zod';
import { BundleCache } from './bundle-cache.js';
import { resolveBundleLimits } from '../bundle/bundle-limits.js';
import { EnvironmentCache } from './environment-cache.js';
import { IrisError } from '../errors.js';
import { WorkerServiceService } from '../gen/iris/v1/worker.js';
import type { ReconcileRequest, ReconcileResponse, WorkerHealth } from '../gen/iris/v1/worker.js';
import { Attempt } from './attempt.js';
import type { AttemptContext } from './attempt.js';
import { SupervisorPool } from './supervisor-pool.js';
import { AttemptTable } from './attempt-table.js';
import { ControllerLink } from './controller-link.js';
import { probeGpus } from './gpu-probe.js';
import { LogShipper } from './log-shipper.js';
import { RunningRecords } from './running-records.js';
import { StartFence } from './start-fence.js';
import { attributesToWire, parseAttributeList, workerDevice } from './worker-attributes.js';
import { WorkerOptionsSchema } from './worker-options.js';
import type { WorkerConfig, WorkerOptions } from './worker-options.js';
import { createWorkerService } from './worker-service.js';
import { ProcessIntrospection } from '../wire/process-introspection.js';

/** Version string a worker reports at registration. */
export const WORKER_VERSION = '0.1.0';

/** A running worker daemon. */
export interface WorkerHandle extends AsyncDisposable {
  /** The stable worker id. */
  readonly workerId: string;
  /** Random per daemon start; a new one tells the controller the old processes are gone. */
  readonly bootId: string;
  /** `host:port` the WorkerService listens on. */
  readonly address: string;
  /** Attributes advertised at registration. */
  readonly attributes: Readonly<Record<string, string | number>>;
  /** Attempts not yet terminal. */
  readonly runningAttempts: number;
  /** Whether the last `Register` was accepted and no re-registration is due. */
  readonly registered: boolean;
  /** Process groups a crashed predecessor left behind, killed at startup (attempt uids). */
  readonly killedLeftovers: readonly string[];
  /** Resolves once the controller accepted this worker's registration. */
  waitForRegistration(options?: { timeoutMs?: number }): Promise<void>;
  /** Stops every attempt (SIGTERM, grace, SIGKILL), flushes logs and shuts the server down. */
  close(): Promise<void>;
}

/**
 * Starts a worker daemon: kills a crashed predecessor's leftover process groups, serves
 * `WorkerService` on `host:port`, registers with the controller (retrying forever) and runs the
 * attempts the controller's `Reconcile` calls ask for as OS process groups.
 * Attributes from `IRIS_WORKER_ATTRIBUTES` (`k=v,…`) and the token from `IRIS_AUTH_TOKEN` apply under
 * the explicit options.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT if the options are malformed (unknown TPU variant, bad port, …)
 * @throws {IrisError} IRIS_UNAVAILABLE if the server cannot bind
 */
export async function startWorker(options: WorkerOptions): Promise<WorkerHandle> {
  const parsed = WorkerOptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `invalid worker options: ${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
      details: { issues: parsed.error.issues },
    });
  }
  const envAttributes = parseAttributeList(process.env['IRIS_WORKER_ATTRIBUTES'] ?? '');
  const config: WorkerConfig = {
    ...parsed.data,
    // Explicit attributes win over the environment's.
    attributes: { ...envAttributes, ...parsed.data.attributes },
    authToken: parsed.data.authToken ?? nonEmpty(process.env['IRIS_AUTH_TOKEN']),
  };
  if (config.tpu === undefined && config.gpu === undefined && config.probeGpus) {
    const found = await probeGpus();
    if (found !== null) config.gpu = found;
  }
  const device = workerDevice(config);
  await mkdir(config.cacheDir, { recursive: true });
  const daemon = new WorkerDaemon(config, device);
  try {
    await daemon.start();
  } catch (e) {
    await daemon.close();
    throw e;
  }
  return daemon;
}

class WorkerDaemon implements WorkerHandle {
  workerId = '';
  readonly bootId = randomBytes(8).toString('hex');
  address = '';
  killedLeftovers: string[] = [];
  readonly attributes: Record<string, string | number>;
  readonly #config: WorkerConfig;
  readonly #device: ReturnType<typeof workerDevice>;
  readonly #server = new Server();
  readonly #startedAtMs = Date.now();
  #link: ControllerLink | null = null;
  #logs: LogShipper | null = null;
  #table: AttemptTable | null = null;
  #supervisors: SupervisorPool | null = null;
  #registered = false;
  #registeredWaiters: (() => void)[] = [];
  #lastReconcileAtMs = 0;
  readonly #fence: StartFence;
  #closed = false;
  #closing: Promise<void> | null = null;
  #registerLoop: Promise<void> = Promise.resolve();
  readonly #wake = new AbortController();
  /** This daemon's status, recent log lines and profiles, for `iris process --worker`. */
  readonly #introspection = new ProcessIntrospection('worker', WORKER_VERSION, () => ({ workerId: this.workerId, runningTasks: this.runningAttempts }));

  constructor(config: WorkerConfig, device: ReturnType<typeof workerDevice>) {
    this.#config = config;
    this.#device = device;
    this.attributes = device.attributes;
    this.#fence = new StartFence({
      taskLeaseMs: config.taskLeaseMs,
      warn: (m) => {
        this.#introspection.log('warn', m);
        console.warn(`[iris worker] ${m}`);
      },
    });
  }

  get runningAttempts(): number {
    return this.#table?.liveCount ?? 0;
  }

  get registered(): boolean {
    return this.#registered;
  }

  async start(): Promise<void> {
    const config = this.#config;
    // Started first, so the waiting supervisors boot while the daemon binds and registers.
    this.#supervisors = new SupervisorPool();
    const port = await this.#bind();
    this.address = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    this.workerId = config.workerId ?? (await this.#persistedWorkerId(port));
    const running = new RunningRecords({ cacheDir: config.cacheDir, workerId: this.workerId });
    this.#introspection.log('info', `worker "${this.workerId}" serving on ${this.address}, controller ${config.controllerAddress}`);
    this.killedLeftovers = await running.killLeftovers(config.termTimeoutMs);
    if (this.killedLeftovers.length > 0) this.#introspection.log('warn', `killed ${this.killedLeftovers.length} process group(s) a previous daemon left behind: ${this.killedLeftovers.join(', ')}`);
    const link = new ControllerLink({ address: config.controllerAddress, token: config.authToken, rpcTimeoutMs: config.rpcTimeoutMs });
    this.#link = link;
    const logs = new LogShipper({
      push: (entries) => link.pushLogs(this.workerId, entries),
      flushIntervalMs: config.logFlushIntervalMs,
    });
    this.#logs = logs;
    const ctx: AttemptContext = {
      workerId: this.workerId,
      controllerAddress: config.controllerAddress,
      authToken: config.authToken,
      advertiseHost: this.#advertiseHost(),
      cacheDir: config.cacheDir,
      daemonEnv: process.env,
      taskEnv: config.taskEnv,
      attributes: this.attributes,
      tpu: this.#device.tpu,
      termTimeoutMs: config.termTimeoutMs,
      taskLeaseMs: () => this.#fence.taskLeaseMs(),
      startByMs: () => this.#fence.startByMs(),
      supervisorReportTimeoutMs: config.supervisorReportTimeoutMs,
      usageIntervalMs: config.usageIntervalMs,
      logDrainTimeoutMs: config.logDrainTimeoutMs,
      supervisors: this.#supervisors,
      bundles: new BundleCache({
        dir: join(config.cacheDir, 'bundles'),
        fetch: (id) => link.fetchBundle(id),
        maxEntries: config.bundleCacheEntries,
        limits: resolveBundleLimits(config.bundleLimits),
      }),
      environments: new EnvironmentCache({ cacheDir: config.cacheDir, termTimeoutMs: config.termTimeoutMs }),
      logs,
      running,
    };
    this.#table = new AttemptTable({
      create: (spec) => {
        this.#introspection.log('info', `starting attempt ${spec.attemptId} of task ${spec.taskId} (${spec.attemptUid})`);
        return new Attempt(spec, ctx);
      },
      mayStart: () => this.#fence.open(),
    });
    this.#registerLoop = this.#runRegisterLoop();
  }

  async waitForRegistration(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.#registered) return;
    const timeoutMs = options.timeoutMs ?? 30_000;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new IrisError('IRIS_DEADLINE_EXCEEDED', `worker "${this.workerId}" was not registered within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#registeredWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #shutdown(): Promise<void> {
    this.#closed = true;
    this.#introspection.log('info', `shutting down with ${this.runningAttempts} attempt(s) not yet terminal`);
    this.#wake.abort();
    await this.#table?.stopAll();
    // Outcomes of attempts that ended on their own and were not yet confirmed stay with their
    // supervisors, which report them to the controller once this daemon is gone.
    this.#table?.releaseStopped();
    this.#supervisors?.close();
    await this.#logs?.drain(this.#config.logDrainTimeoutMs);
    await this.#logs?.close();
    await this.#registerLoop;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        this.#server.forceShutdown();
        resolve();
      }, 2000);
      this.#server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    this.#link?.close();
    this.#introspection.close();
  }

  #bind(): Promise<number> {
    const { host, port } = this.#config;
    this.#server.addService(WorkerServiceService, createWorkerService(this.#backend(), this.#config.authToken));
    return new Promise((resolve, reject) => {
      this.#server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, ServerCredentials.createInsecure(), (err, bound) => {
        if (err !== null) reject(new IrisError('IRIS_UNAVAILABLE', `worker cannot bind ${host}:${port}`, { cause: err }));
        else resolve(bound);
      });
    });
  }

  #backend() {
    return {
      workerId: () => this.workerId,
      reconcile: (request: ReconcileRequest): ReconcileResponse => this.#reconcile(request),
      health: (): WorkerHealth => this.#health(),
      uptimeMs: () => Date.now() - this.#startedAtMs,
      runningAttempts: () => this.runningAttempts,
      execContext: (uid: string) => (this.#closed ? undefined : (this.#table?.get(uid)?.execContext ?? undefined)),
      introspection: this.#introspection,
    };
  }

  #reconcile(request: ReconcileRequest): ReconcileResponse {
    const workerTimeMs = Date.now();
    this.#lastReconcileAtMs = workerTimeMs;
    const table = this.#table;
    if (table === null || this.#closed) {
      throw new IrisError('IRIS_UNAVAILABLE', `worker "${this.workerId}" is shutting down`);
    }
    this.#fence.reconciled(request);
    return { workerId: this.workerId, observed: table.reconcile(request.desired), health: this.#health(), workerTimeMs };
  }

  #health(): WorkerHealth {
    const usage = {
      cpuMillicores: Math.round(loadavg()[0] ?? 0) * 1000,
      memoryBytes: totalmem() - freemem(),
      peakMemoryBytes: 0,
      processCount: this.runningAttempts,
    };
    try {
      accessSync(this.#config.cacheDir, fsConstants.W_OK);
    } catch (e) {
      return { healthy: false, error: `cache dir "${this.#config.cacheDir}" is not writable: ${(e as Error).message}`, hostUsage: { ...usage } };
    }
    const free = freeDiskBytes(this.#config.cacheDir);
    if (free !== null && free < this.#config.minFreeDiskBytes) {
      return {
        healthy: false,
        error: `disk of cache dir "${this.#config.cacheDir}" is full: ${free} bytes free, need ${this.#config.minFreeDiskBytes}`,
        hostUsage: { ...usage },
      };
    }
    return { healthy: true, error: '', hostUsage: { ...usage } };
  }

  async #runRegisterLoop(): Promise<void> {
    const config = this.#config;
    const backoff = new ExponentialBackoff({ initialMs: config.registerRetryInitialMs, factor: 2, maximumMs: config.registerRetryMaxMs, jitter: 0 });
    let lastFailure = '';
    while (!this.#closed) {
      try {
        const sentAtMs = Date.now();
        const response = await (this.#link as ControllerLink).register(this.#registerRequest());
        if (!response.accepted) throw new IrisError('IRIS_UNAVAILABLE', `controller refused worker "${this.workerId}"`);
        this.#fence.registered(sentAtMs);
        this.#registered = true;
        this.#lastReconcileAtMs = Date.now();
        backoff.reset();
        lastFailure = '';
        this.#introspection.log('info', `registered with the controller at ${config.controllerAddress}`);
        for (const waiter of this.#registeredWaiters.splice(0)) waiter();
        // Stay registered while Reconcile calls keep arriving; silence means the controller lost us.
        while (!this.#closed && Date.now() - this.#lastReconcileAtMs < config.reregisterAfterMs) {
          await this.#sleep(Math.min(1000, config.reregisterAfterMs));
        }
        this.#registered = false;
        if (!this.#closed) this.#introspection.log('warn', `no Reconcile from the controller for ${config.reregisterAfterMs} ms; registering again`);
      } catch (e) {
        // Logged once per distinct failure, not once per retry.
        const message = `registration with ${config.controllerAddress} failed: ${(e as Error).message}`;
        if (message !== lastFailure) this.#introspection.log('warn', message);
        lastFailure = message;
        this.#registered = false;
        await this.#sleep(backoff.nextIntervalMs());
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.#wake.signal }).catch(() => undefined);
  }

  #registerRequest() {
    const config = this.#config;
    return {
      workerId: this.workerId,
      bootId: this.bootId,
      address: `${this.#advertiseHost()}:${this.address.slice(this.address.lastIndexOf(':') + 1)}`,
      metadata: {
        hostname: hostname(),
        version: WORKER_VERSION,
        cpuMillicores: config.cpuMillicores ?? cpus().length * 1000,
        memoryBytes: config.memoryBytes ?? totalmem(),
        diskBytes: config.diskBytes ?? freeDiskBytes(config.cacheDir) ?? 0,
        device: this.#device.device,
        attributes: attributesToWire(this.attributes),
      },
    };
  }

  #advertiseHost(): string {
    const { advertiseHost, host } = this.#config;
    if (advertiseHost !== undefined) return advertiseHost;
    return host === '0.0.0.0' || host === '::' ? hostname() : host;
  }

  async #persistedWorkerId(port: number): Promise<string> {
    const path = join(this.#config.cacheDir, 'worker-id');
    try {
      const id = (await readFile(path, 'utf8')).trim();
      if (id !== '') return id;
    } catch {
      // first start with this cache dir
    }
    const id = `${hostname()}-${port}`;
    await writeFile(path, `${id}\n`);
    return id;
  }
}

function freeDiskBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null; // no statfs here: nothing to judge by
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
