import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { RiggingError, ensurePythonEnv } from '@marin/rigging';
import type { PythonEnv } from '@marin/rigging';
import type { Client, JobHandle, WaitOptions } from '../../client/client.js';
import { withClient } from '../../client/client-scope.js';
import { FRAY_JOB_ENV, runInJobContext } from '../../client/job-context.js';
import type { FrayLogger } from '../../client/logger.js';
import { isFinished } from '../../client/job-status.js';
import type { JobStatus } from '../../client/job-status.js';
import { FrayError, JobFailed, WaitTimeout } from '../../errors.js';
import type { BinaryEntrypoint, ModuleEntrypoint } from '../../request/entrypoint.js';
import type { ResolvedJobRequest } from '../../request/job-request.js';
import { MODULE_ARGS_FILE, MODULE_RUNNER_FILE, moduleRunnerArgs, moduleRunnerNodeFlags, moduleRunnerSource } from '../../runner/module-runner.js';
import { loadModuleExport } from './load-module-export.js';
import { OutputTail } from './output-tail.js';
import { spawnProcessGroup } from './process-group.js';
import type { ProcessGroupRun } from './process-group.js';

/** What a local job needs from the client that runs it. */
export interface LocalJobHost {
  readonly client: Client;
  readonly logger: FrayLogger;
  readonly callables: 'in-process' | 'reentry';
  readonly killGraceMs: number;
  readonly tailLines: number;
  readonly cwd: string;
  /** The workspace root (module paths resolve against it). */
  readonly workspace: () => string;
  /** Where Python environments of jobs with a `pythonEnv` are built and cached. */
  readonly pythonEnvCacheDir: string;
  /** The client's pool: jobs running now and the most that may run at once. */
  readonly slots: () => { running: number; maxConcurrency: number };
}

/** One job of the local backend: queued, then run in this process or as process groups. */
export class LocalJob implements JobHandle {
  private state: JobStatus = 'pending';
  private error: unknown = undefined;
  private readonly output: OutputTail;
  private readonly abort = new AbortController();
  private readonly processes = new Set<ProcessGroupRun>();
  private python: PythonEnv | null = null;
  /** A running environment build; terminate waits for it to stop (and remove its staging dir). */
  private building: Promise<unknown> | null = null;
  private readonly done: Promise<void>;
  private markDone!: () => void;

  constructor(
    readonly jobId: string,
    readonly request: ResolvedJobRequest,
    private readonly host: LocalJobHost,
  ) {
    this.output = new OutputTail(host.tailLines);
    this.done = new Promise((resolve) => {
      this.markDone = resolve;
    });
  }

  /** Resolves when the job is finished (including at once on terminate). */
  get finished(): Promise<void> {
    return this.done;
  }

  status(): Promise<JobStatus> {
    return Promise.resolve(this.state);
  }

  async wait(options: WaitOptions = {}): Promise<JobStatus> {
    const { timeoutMs, raiseOnFailure = true } = options;
    if (!isFinished(this.state)) {
      if (timeoutMs === undefined) {
        await this.done;
      } else {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          this.done.then(() => false),
          new Promise<boolean>((r) => {
            timer = setTimeout(() => r(true), timeoutMs);
          }),
        ]);
        clearTimeout(timer);
        if (timedOut) throw new WaitTimeout([this.jobId], timeoutMs);
      }
    }
    const final = this.state;
    if (final === 'failed' || final === 'stopped') {
      if (raiseOnFailure) {
        const reason = final === 'stopped' ? 'terminated' : describe(this.error);
        throw new JobFailed(this.jobId, final, `Job ${this.jobId} ${final}: ${reason}`, this.error);
      }
      this.host.logger.warn(`job ${this.jobId} ${final}: ${final === 'stopped' ? 'terminated' : describe(this.error)}`);
    }
    return final;
  }

  /** `waiting for a free slot (N of M running)` while queued; `undefined` otherwise. */
  pendingReason(): Promise<string | undefined> {
    if (this.state !== 'pending') return Promise.resolve(undefined);
    const { running, maxConcurrency } = this.host.slots();
    return Promise.resolve(`waiting for a free slot (${running} of ${maxConcurrency} running)`);
  }

  logs(options: { maxLines?: number } = {}): Promise<string[]> {
    return Promise.resolve(this.output.tail(options.maxLines ?? 1000));
  }

  async terminate(): Promise<void> {
    if (isFinished(this.state)) return;
    this.finish('stopped', undefined);
    this.abort.abort(new FrayError('FRAY_JOB_CANCELLED', `job ${this.jobId} was terminated`));
    await Promise.all([...this.processes].map((p) => p.terminate(this.host.killGraceMs)));
    await this.building;
  }

  /** Runs every replica; called by the client when a concurrency slot is free. Never rejects. */
  async run(): Promise<void> {
    if (isFinished(this.state)) return;
    this.state = 'running';
    if (this.request.pythonEnv !== undefined) {
      const building = this.preparePython();
      this.building = building.catch(() => undefined);
      try {
        this.python = await building;
      } catch (e) {
        this.finish('failed', e);
        return;
      } finally {
        this.building = null;
      }
      if (isFinished(this.state)) return;
    }
    const n = this.request.replicas;
    const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => this.runTask(i, n)));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure === undefined) this.finish('succeeded', undefined);
    else this.finish('failed', failure.reason);
  }

  private finish(status: JobStatus, error: unknown): void {
    // A terminal state is final: a late result of a terminated callable is ignored.
    if (isFinished(this.state)) return;
    this.state = status;
    this.error = error;
    this.markDone();
  }

  /**
   * Builds (or finds) the job's Python environment; progress goes to the job's log. A failed build is the job's
   * failure, with uv's error text in the message and the rigging error as cause.
   */
  private async preparePython(): Promise<PythonEnv> {
    const spec = this.request.pythonEnv as NonNullable<ResolvedJobRequest['pythonEnv']>;
    const log = (line: string): void => this.record(`[python-env] ${line}`, 0, 1);
    try {
      const env = await ensurePythonEnv({
        lock: spec.lock,
        lockName: spec.name,
        pythonVersion: spec.pythonVersion,
        cacheDir: this.host.pythonEnvCacheDir,
        log,
        signal: this.abort.signal,
      });
      if (!env.built) log(`reusing Python ${spec.pythonVersion} environment ${env.key} (${spec.name}) at ${env.dir}`);
      return env;
    } catch (e) {
      if (this.abort.signal.aborted) throw e;
      const errorText = RiggingError.is(e) && typeof e.details['errorText'] === 'string' ? e.details['errorText'] : describe(e);
      throw new FrayError('FRAY_JOB_FAILED', `cannot build the Python environment of "${spec.name}": ${errorText}`, {
        cause: e,
        details: { lock: spec.name, pythonVersion: spec.pythonVersion, errorText },
      });
    }
  }

  /** `VIRTUAL_ENV` and `PATH` that activate the job's Python environment on top of `base`, or nothing without one. */
  private pythonVars(base: Readonly<Record<string, string | undefined>>): Record<string, string> {
    if (this.python === null) return {};
    const path = base['PATH'];
    const bin = join(this.python.dir, 'bin');
    return { VIRTUAL_ENV: this.python.dir, PATH: path === undefined || path === '' ? bin : `${bin}${delimiter}${path}` };
  }

  private record(line: string, taskIndex: number, numTasks: number): void {
    const text = numTasks > 1 ? `task=${taskIndex} | ${line}` : line;
    this.output.push(text);
    this.host.logger.info(`[${this.jobId}] ${text}`);
  }

  private async runTask(taskIndex: number, numTasks: number): Promise<void> {
    const ep = this.request.entrypoint;
    if (ep.kind === 'binary') return this.runProcess(ep, taskIndex, numTasks);
    if (ep.kind === 'callable' && this.host.callables === 'reentry') {
      if (ep.reentry === undefined) {
        throw new FrayError('FRAY_ENTRYPOINT_NOT_PORTABLE', `job "${this.request.name}" is a callable without a reentry entrypoint`);
      }
      // A re-entered command runs from the workspace root, as it would from the bundle root on a cluster.
      const root = this.request.environment.workspace ?? this.host.workspace();
      return ep.reentry.kind === 'binary' ? this.runProcess(ep.reentry, taskIndex, numTasks, root) : this.runModuleProcess(ep.reentry, taskIndex, numTasks);
    }
    const jobVars = this.request.environment.envVars ?? {};
    const env = { ...jobVars, ...this.pythonVars({ PATH: process.env['PATH'], ...jobVars }) };
    const context = Object.freeze({ jobId: this.jobId, taskIndex, numTasks, env: Object.freeze(env), signal: this.abort.signal });
    const body =
      ep.kind === 'callable'
        ? () => ep.fn()
        : async () => {
            const fn = await loadModuleExport(this.request.environment.workspace ?? this.host.workspace(), ep.module, ep.exportName);
            return ep.spreadArgs === true && Array.isArray(ep.args) ? fn(...ep.args) : fn(ep.args);
          };
    await withClient(this.host.client, () => runInJobContext(context, async () => body()));
  }

  private processEnv(taskIndex: number, numTasks: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const base: NodeJS.ProcessEnv = { ...process.env, ...(this.request.environment.envVars ?? {}), ...extra };
    // An inherited PYTHONHOME would point the environment's interpreter at another installation's stdlib.
    if (this.python !== null) delete base['PYTHONHOME'];
    return {
      ...base,
      ...this.pythonVars(base),
      [FRAY_JOB_ENV.jobId]: this.jobId,
      [FRAY_JOB_ENV.taskIndex]: String(taskIndex),
      [FRAY_JOB_ENV.numTasks]: String(numTasks),
    };
  }

  private async runProcess(ep: BinaryEntrypoint, taskIndex: number, numTasks: number, cwd = this.host.cwd, extraEnv: Record<string, string> = {}): Promise<void> {
    if (this.abort.signal.aborted) return;
    const files = Object.entries(ep.files ?? {});
    const filesDir = files.length === 0 ? undefined : await mkdtemp(join(tmpdir(), 'fray-files-'));
    try {
      let args = ep.args;
      if (filesDir !== undefined) {
        for (const [name, content] of files) await writeFile(join(filesDir, name), content);
        // An argument naming a shipped file refers to it; locally the file lives in a private dir, not in cwd.
        args = args.map((a) => (Object.hasOwn(ep.files ?? {}, a) ? join(filesDir, a) : a));
      }
      const run = spawnProcessGroup({
        // `node` means this process's Node, so a re-entered script runs on the same runtime as its submitter.
        command: ep.command === 'node' ? process.execPath : ep.command,
        args,
        cwd,
        env: this.processEnv(taskIndex, numTasks, extraEnv),
        onLine: (line) => this.record(line, taskIndex, numTasks),
      });
      this.processes.add(run);
      // A terminate that raced with writing the files or spawning found no process to stop; stop this one now.
      if (this.abort.signal.aborted) void run.terminate(this.host.killGraceMs);
      try {
        const outcome = await run.outcome;
        if (outcome.kind === 'spawn-error') {
          throw new FrayError('FRAY_JOB_FAILED', `cannot start "${ep.command}"`, { cause: outcome.error, details: { command: ep.command } });
        }
        if (outcome.exitCode !== 0) {
          throw new FrayError('FRAY_JOB_FAILED', `Exit code ${outcome.exitCode}`, {
            details: { exitCode: outcome.exitCode, signal: outcome.signal, taskIndex },
          });
        }
      } finally {
        this.processes.delete(run);
      }
    } finally {
      if (filesDir !== undefined) await rm(filesDir, { recursive: true, force: true });
    }
  }

  private async runModuleProcess(ep: ModuleEntrypoint, taskIndex: number, numTasks: number): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'fray-runner-'));
    try {
      const runner = join(dir, MODULE_RUNNER_FILE);
      const argsFile = join(dir, MODULE_ARGS_FILE);
      await writeFile(runner, moduleRunnerSource());
      await writeFile(argsFile, moduleRunnerArgs(ep));
      const workspace = this.request.environment.workspace ?? this.host.workspace();
      const argv = [...moduleRunnerNodeFlags(ep.module), runner, argsFile];
      await this.runProcess({ kind: 'binary', command: process.execPath, args: argv }, taskIndex, numTasks, workspace, { FRAY_WORKSPACE: workspace });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? 'unknown error' : String(error);
}
