import { mkdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve, sep } from 'node:path';
import type { BundleCache } from './bundle-cache.js';
import type { EnvironmentCache } from './environment-cache.js';
import { IrisError } from '../errors.js';
import { Constraint, StopReason, TaskState } from '../gen/iris/v1/types.js';
import type { RunTaskRequest } from '../gen/iris/v1/types.js';
import type { AttemptObservation } from '../gen/iris/v1/worker.js';
import { AttemptProcess } from './attempt-process.js';
import type { LogShipper } from './log-shipper.js';
import type { ResourceUsage } from './resource-usage.js';
import type { SupervisorPool } from './supervisor-pool.js';
import { EMPTY_USAGE } from './resource-usage.js';
import type { RunningRecords } from './running-records.js';
import { buildTaskEnv } from './task-env.js';
import { PYTHON_ENV_BUILD_FAILED_EXIT_CODE } from '../core/python-env-failure.js';
import { activatePythonEnv, prepareTaskPythonEnv } from './task-python-env.js';
import { failureLineOf, withCause } from './failure-line.js';

/** States an attempt passes through on a worker. */
export type AttemptState = 'BUILDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'KILLED' | 'WORKER_FAILED';

const TERMINAL: ReadonlySet<AttemptState> = new Set(['SUCCEEDED', 'FAILED', 'KILLED', 'WORKER_FAILED']);

const WIRE_STATES: Record<AttemptState, TaskState> = {
  BUILDING: TaskState.TASK_STATE_BUILDING,
  RUNNING: TaskState.TASK_STATE_RUNNING,
  SUCCEEDED: TaskState.TASK_STATE_SUCCEEDED,
  FAILED: TaskState.TASK_STATE_FAILED,
  KILLED: TaskState.TASK_STATE_KILLED,
  WORKER_FAILED: TaskState.TASK_STATE_WORKER_FAILED,
};

/** What every attempt on one worker shares: identity, caches, the log pipeline and timings. */
export interface AttemptContext {
  workerId: string;
  controllerAddress: string;
  authToken?: string | undefined;
  advertiseHost: string;
  cacheDir: string;
  daemonEnv: Readonly<Record<string, string | undefined>>;
  taskEnv: Readonly<Record<string, string>>;
  attributes: Readonly<Record<string, string | number>>;
  tpu?: { name: string; workerId: number; acceleratorType: string } | undefined;
  termTimeoutMs: number;
  /**
   * A task's supervisor kills it when the daemon has not renewed the lease for this long: the
   * configured lease, clamped well below the controller's liveness grace (`StartFence.taskLeaseMs`).
   */
  taskLeaseMs: () => number;
  /** The last wall-clock time at which a task may be started (the worker's start fence, invariant 15). */
  startByMs: () => number;
  /** How long a supervisor keeps trying to tell the controller an outcome the daemon could not. */
  supervisorReportTimeoutMs: number;
  usageIntervalMs: number;
  /** How long an ending attempt waits for its logs to reach the controller. */
  logDrainTimeoutMs: number;
  /** The worker's waiting task supervisors; without it each task starts its own. */
  supervisors?: SupervisorPool | undefined;
  bundles: BundleCache;
  environments: EnvironmentCache;
  logs: LogShipper;
  running: RunningRecords;
}

/** The minimal surface the reconcile loop needs from an attempt; a fake can implement it. */
export interface ReconcilableAttempt {
  readonly uid: string;
  /** True until the attempt reached a terminal state. */
  readonly live: boolean;
  /** Starts the lifecycle; called once. */
  start(): void;
  /** Stops the attempt if live (idempotent); resolves once it is terminal. */
  stop(reason: StopReason): Promise<void>;
  /** The attempt as the controller sees it. */
  observe(): AttemptObservation;
  /** Called once the controller has the terminal outcome: the supervisor may exit. */
  release?(): void;
  /** True once this worker was asked to stop the attempt (a stop, a zombie, a drain). */
  readonly stoppedByWorker?: boolean;
  /** The running task's workdir and environment (`iris task exec`); null unless RUNNING. */
  readonly execContext?: { readonly cwd: string; readonly env: Readonly<Record<string, string>> } | null;
}

/**
 * One attempt on this worker: BUILDING (workdir, ports, bundle, setup) → RUNNING (process group) →
 * a terminal state, which is set only after the attempt's logs were flushed to the controller.
 */
export class Attempt implements ReconcilableAttempt {
  readonly uid: string;
  readonly spec: RunTaskRequest;
  /** The attempt's own directory (its workdir unless the job runs in place). */
  readonly attemptDir: string;
  #state: AttemptState = 'BUILDING';
  #exitCode = 0;
  #error = '';
  /** The last stderr line of the task that states a failure's cause (see `failureLineOf`). */
  #cause: string | null = null;
  #startedAtMs = 0;
  #finishedAtMs = 0;
  #ports: Record<string, number> = {};
  #process: AttemptProcess | null = null;
  /** Where and with what environment the task runs, once it runs (for `iris task exec`). */
  #execContext: { readonly cwd: string; readonly env: Readonly<Record<string, string>> } | null = null;
  #stopReason: StopReason | null = null;
  readonly #abort = new AbortController();
  readonly #ctx: AttemptContext;
  #done: Promise<void> = Promise.resolve();

  constructor(spec: RunTaskRequest, ctx: AttemptContext) {
    this.uid = spec.attemptUid;
    this.spec = spec;
    this.#ctx = ctx;
    const name = `${spec.jobId.replaceAll('/', '_')}_${spec.taskIndex}_attempt_${spec.attemptId}`;
    this.attemptDir = join(ctx.cacheDir, 'workdirs', name);
  }

  get state(): AttemptState {
    return this.#state;
  }

  get live(): boolean {
    return !TERMINAL.has(this.#state);
  }

  /** Resolves once the attempt is terminal. */
  get done(): Promise<void> {
    return this.#done;
  }

  /** The running task's workdir and environment; null unless the attempt is RUNNING. */
  get execContext(): { readonly cwd: string; readonly env: Readonly<Record<string, string>> } | null {
    return this.#state === 'RUNNING' ? this.#execContext : null;
  }

  get usage(): ResourceUsage {
    return this.#process?.usage ?? EMPTY_USAGE;
  }

  release(): void {
    this.#process?.release();
  }

  get stoppedByWorker(): boolean {
    return this.#stopReason !== null;
  }

  start(): void {
    this.#done = this.#run().catch((e: unknown) => {
      if (e instanceof JobFault) return this.#finish('FAILED', 1, e.message);
      // Anything unexpected (disk full, a bug) is the worker's failure, not the task's.
      return this.#finish('WORKER_FAILED', 0, `worker error: ${(e as Error).message ?? String(e)}`);
    });
  }

  async stop(reason: StopReason): Promise<void> {
    if (!this.live) return;
    if (this.#stopReason === null) {
      this.#stopReason = reason;
      this.#system(`[iris] stopping attempt (${StopReason[reason] ?? reason})`);
      this.#abort.abort();
      void this.#process?.stop(this.#ctx.termTimeoutMs);
    }
    await this.#done;
  }

  observe(): AttemptObservation {
    return {
      attemptUid: this.uid,
      state: WIRE_STATES[this.#state],
      exitCode: this.#exitCode,
      error: this.#error,
      startedAtMs: this.#startedAtMs,
      finishedAtMs: this.#finishedAtMs,
      usage: { ...this.usage },
      ports: { ...this.#ports },
    };
  }

  async #run(): Promise<void> {
    const spec = this.spec;
    const entrypoint = spec.entrypoint;
    const argv = entrypoint?.run?.argv ?? [];
    if (argv.length === 0) return this.#finish('FAILED', 1, 'run command is empty');
    const inPlace = entrypoint?.inPlace === true && entrypoint.workdir !== '';
    const workdir = inPlace ? (entrypoint as { workdir: string }).workdir : this.attemptDir;
    await freshDir(this.attemptDir);
    this.#ports = await allocatePorts(spec.ports);
    const env = buildTaskEnv({
      daemonEnv: this.#ctx.daemonEnv,
      workdir,
      taskEnv: this.#ctx.taskEnv,
      jobEnv: spec.environment?.envVars ?? {},
      jobId: spec.jobId,
      taskId: spec.taskId,
      taskIndex: spec.taskIndex,
      numTasks: spec.numTasks,
      attemptId: spec.attemptId,
      attemptUid: spec.attemptUid,
      user: spec.user,
      workerId: this.#ctx.workerId,
      controllerAddress: this.#ctx.controllerAddress,
      // With per-user keys the task gets its own job's credential, never the worker's token.
      authToken: spec.taskToken !== '' ? spec.taskToken : this.#ctx.authToken,
      advertiseHost: this.#ctx.advertiseHost,
      bundleId: spec.bundleId,
      ports: this.#ports,
      dependencyGroups: spec.environment?.dependencyGroups ?? [],
      constraints: spec.constraints.map((c) => Constraint.toJSON(c)),
      workerAttributes: this.#ctx.attributes,
      gang: spec.gang === undefined || spec.gang.groupSize === 0 ? undefined : { ...spec.gang },
      tpu: this.#ctx.tpu,
    });
    // TMPDIR of an in-place job stays in its own attempt dir, never in the submitter's workspace.
    env['TMPDIR'] = join(this.attemptDir, '.tmp');
    mkdirSync(env['TMPDIR']);

    // Before setup, so setup commands see the environment too; in-place attempts get it as well.
    const python = spec.environment?.pythonEnv;
    if (python !== undefined) {
      const outcome = await prepareTaskPythonEnv({
        spec: python,
        cacheDir: this.#ctx.cacheDir,
        onLine: (line) => this.#ctx.logs.append(this.#logRef(), 'build', line),
        signal: this.#abort.signal,
      });
      if (!outcome.ok) {
        if (outcome.aborted || this.#stopReason !== null) return this.#finish('KILLED', 0, this.#stopMessage());
        // The lock does not install: the job's failure (its failure budget), never the worker's.
        return this.#finish('FAILED', PYTHON_ENV_BUILD_FAILED_EXIT_CODE, outcome.message);
      }
      activatePythonEnv(env, outcome.dir);
      if (this.#stopReason !== null) return this.#finish('KILLED', 0, this.#stopMessage());
    }

    if (!inPlace) {
      const prepared = await this.#prepare(env);
      if (prepared !== 'ok') return;
    }
    await writeWorkdirFiles(workdir, entrypoint?.workdirFiles ?? {});
    if (this.#stopReason !== null) return this.#finish('KILLED', 0, this.#stopMessage());

    // Building can take long and the daemon may have been stopped meanwhile: a task starts only while
    // the controller still counts on this worker, or it could run beside its replacement elsewhere.
    const startByMs = this.#ctx.startByMs();
    if (Date.now() > startByMs) return this.#finish('WORKER_FAILED', 0, 'worker lost contact with the controller before starting the task');
    this.#execContext = { cwd: workdir, env: { ...env } };
    try {
      this.#process = await AttemptProcess.spawn({
        argv,
        cwd: workdir,
        env,
        usageIntervalMs: this.#ctx.usageIntervalMs,
        supervisors: this.#ctx.supervisors,
        onOutput: (source, line) => {
          if (source === 'stderr') this.#cause = failureLineOf(line) ?? this.#cause;
          this.#ctx.logs.append(this.#logRef(), source, line);
        },
        supervisor: {
          workerId: this.#ctx.workerId,
          attemptUid: this.uid,
          controllerAddress: this.#ctx.controllerAddress,
          leaseMs: this.#ctx.taskLeaseMs(),
          startByMs,
          reportTimeoutMs: this.#ctx.supervisorReportTimeoutMs,
        },
      });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      // A missing or unusable binary, or argv/env Node refuses (a NUL byte), is the job's fault:
      // retrying it elsewhere as a worker failure would only burn the preemption budget.
      const jobFault = JOB_SPAWN_ERRORS.has(code);
      return this.#finish(jobFault ? 'FAILED' : 'WORKER_FAILED', jobFault ? 127 : 0, `cannot start "${argv[0]}": ${code}`);
    }
    const proc = this.#process;
    this.#startedAtMs = proc.startedAtMs;
    this.#state = 'RUNNING';
    this.#ctx.running.add({
      uid: this.uid,
      pid: proc.pid,
      pgid: proc.pgid,
      startTime: proc.startTime,
      startedAtMs: proc.startedAtMs,
      supervisorPid: proc.supervisorPid,
      supervisorStartTime: proc.supervisorStartTime,
    });
    // A stop that raced with the spawn still has to reach the new group.
    if (this.#stopReason !== null) void proc.stop(this.#ctx.termTimeoutMs);
    const status = await proc.exited;
    this.#ctx.running.remove(this.uid);
    proc.sampleUsage();
    if (this.#stopReason !== null) return this.#finish('KILLED', status.exitCode, this.#stopMessage());
    if (status.workerFault !== undefined) return this.#finish('WORKER_FAILED', status.exitCode, status.workerFault);
    if (status.exitCode === 0) return this.#finish('SUCCEEDED', 0, '');
    // "Exit code 1" alone says nothing: the task's last line stating a cause goes with it.
    return this.#finish('FAILED', status.exitCode, withCause(status.message, this.#cause));
  }

  async #prepare(env: Record<string, string>): Promise<'ok' | 'ended'> {
    let lease = null;
    try {
      if (this.spec.bundleId !== '') {
        this.#system(`[iris] fetching bundle ${this.spec.bundleId}`);
        try {
          lease = await this.#ctx.bundles.acquire(this.spec.bundleId);
        } catch (e) {
          // An unknown bundle or an archive that does not verify is the job's fault and fails it at
          // once; an unreachable controller or a full disk is the worker's and is retried elsewhere.
          const jobFault = IrisError.is(e) && ['IRIS_NOT_FOUND', 'IRIS_INVALID_ARGUMENT', 'IRIS_BUNDLE_UNSAFE', 'IRIS_BUNDLE_TOO_LARGE'].includes(e.code);
          const reason = IrisError.hasCode(e, 'IRIS_NOT_FOUND') ? 'the controller does not have it' : (e as Error).message;
          await this.#finish(jobFault ? 'FAILED' : 'WORKER_FAILED', jobFault ? 1 : 0, `cannot fetch bundle "${this.spec.bundleId}": ${reason}`);
          return 'ended';
        }
        this.#system(`[iris] bundle ${this.spec.bundleId} ${lease.hit ? 'served from cache' : 'downloaded'}`);
      }
      if (this.#stopReason !== null) {
        await this.#finish('KILLED', 0, this.#stopMessage());
        return 'ended';
      }
      const outcome = await this.#ctx.environments.prepareWorkdir({
        bundleId: this.spec.bundleId,
        bundleTree: lease?.path ?? null,
        setupCommands: (this.spec.entrypoint?.setupCommands ?? []).map((c) => c.argv),
        workdir: this.attemptDir,
        env,
        onLine: (line) => this.#ctx.logs.append(this.#logRef(), 'build', line),
        signal: this.#abort.signal,
      });
      if (!outcome.ok) {
        if (outcome.aborted || this.#stopReason !== null) await this.#finish('KILLED', 0, this.#stopMessage());
        else await this.#finish('FAILED', outcome.exitCode, outcome.message);
        return 'ended';
      }
      return 'ok';
    } finally {
      await lease?.release();
    }
  }

  #stopMessage(): string {
    return `stopped: ${StopReason[this.#stopReason ?? StopReason.STOP_REASON_UNSPECIFIED] ?? 'unknown'}`;
  }

  #logRef(): { taskId: string; attemptId: number; attemptUid: string } {
    return { taskId: this.spec.taskId, attemptId: this.spec.attemptId, attemptUid: this.uid };
  }

  #system(line: string): void {
    this.#ctx.logs.append(this.#logRef(), 'system', line);
  }

  async #finish(state: AttemptState, exitCode: number, error: string): Promise<void> {
    if (!this.live) return;
    if (error !== '') this.#system(`[iris] attempt ${state.toLowerCase()}: ${error}`);
    // Logs first: once the controller sees a terminal state it may consider the attempt complete.
    await this.#ctx.logs.drain(this.#ctx.logDrainTimeoutMs);
    this.#exitCode = exitCode;
    this.#error = error;
    this.#finishedAtMs = Date.now();
    this.#state = state;
  }
}

/**
 * Creates `dir` empty: a new directory in the common case (one call), otherwise what a predecessor
 * left there is removed first.
 */
async function freshDir(dir: string): Promise<void> {
  try {
    // Synchronous: a local mkdir costs a fraction of a thread-pool round trip (docs/benchmarks.md, "Per-job CPU").
    mkdirSync(dir);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOENT') throw e;
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
}

/** Binds port 0 once per name on loopback, records the port and releases it for the task. */
async function allocatePorts(names: readonly string[]): Promise<Record<string, number>> {
  const ports: Record<string, number> = {};
  for (const name of names) {
    ports[name] = await new Promise<number>((resolvePort, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        const port = typeof address === 'object' && address !== null ? address.port : 0;
        server.close(() => resolvePort(port));
      });
    });
  }
  return ports;
}

/** Spawn errors caused by the job's own command or environment, not by the worker. */
const JOB_SPAWN_ERRORS = new Set(['ENOENT', 'EACCES', 'EPERM', 'ENOTDIR', 'EISDIR', 'ENOEXEC', 'ELOOP', 'ENAMETOOLONG', 'E2BIG', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_ARG_TYPE']);

/** A failure the job's spec causes; the attempt ends FAILED (the failure budget), never WORKER_FAILED. */
class JobFault extends Error {}

async function writeWorkdirFiles(workdir: string, files: Readonly<Record<string, Buffer>>): Promise<void> {
  const root = resolve(workdir);
  for (const [path, content] of Object.entries(files)) {
    const target = resolve(root, path);
    if (!target.startsWith(root + sep) || path.includes('\0')) throw new JobFault(`workdir file "${path}" escapes the workdir`);
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A path through one of the job's own files (ENOTDIR, EISDIR) is the job's mistake; a full disk is not.
      if (code === 'ENOTDIR' || code === 'EISDIR' || code === 'ENAMETOOLONG') throw new JobFault(`cannot write workdir file "${path}": ${code}`);
      throw e;
    }
  }
}
