import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stderrLogger } from '../client/logger.js';
import type { FrayLogger } from '../client/logger.js';
import { FrayError } from '../errors.js';
import { MODULE_RUNNER_FILE, moduleRunnerNodeFlags, moduleRunnerSource } from '../runner/module-runner.js';
import { findWorkspaceRoot } from '../runner/workspace-root.js';
import { spawnProcessGroup } from '../backends/local/process-group.js';
import type { ProcessGroupRun } from '../backends/local/process-group.js';
import { actorBackendOf, actorJobSpecOf } from './actor-backend.js';
import type { ActorBackend, AnyActorEntry, CreateActorOptions } from './actor-backend.js';
import { ActorHandle } from './actor-handle.js';
import type { ActorEndpoint, ActorState } from './actor-handle.js';
import { ACTOR_PARENT_PID_ENV, ACTOR_READY_PREFIX } from './actor-main.js';
import type { ActorHostSpec } from './actor-main.js';
import { isPythonEntry, pythonActorEnv, pythonServeArgs, resolveLocalInterpreter } from './python-actor.js';
import type { PythonHostSpec } from './python-actor.js';

/** Default of `CreateActorOptions.readyTimeoutMs`. */
export const DEFAULT_ACTOR_READY_TIMEOUT_MS = 60_000;
/** How many of an actor's last output lines an error carries. */
const TAIL_LINES = 20;
/** After a dropped connection, how long a handle waits for the process to be seen exiting. */
const EXIT_SETTLE_MS = 3000;

/** Options of {@link createLocalActorBackend}. */
export interface LocalActorBackendOptions {
  /** Working directory of actor processes and root of workspace module paths. @default the git top level of the cwd */
  workspace?: string;
  /** Receives actor output lines (prefixed `[actor <name>]`) and restart warnings. @default stderr */
  logger?: FrayLogger;
  /** SIGTERM → SIGKILL grace when an actor is stopped. @default 2000 */
  killGraceMs?: number;
  /** Where Python actors' environments (entries with a lock) are built and reused. @default rigging's `pythonEnvCacheDir()` */
  pythonEnvCacheDir?: string;
}

type Waiter = () => void;

/** The command line of one local actor process. */
interface ActorLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * One local actor: a supervised OS process (its own process group) running {@link runActorHost}, or for a Python
 * entry the Python host itself (`python -m fray_actors.serve`).
 */
class LocalActorProcess implements ActorEndpoint {
  private current: ActorState = 'starting';
  private run: ProcessGroupRun | undefined;
  private addr: string | undefined;
  private restarts = 0;
  private reason: string | undefined;
  private stopping = false;
  private readonly tail: string[] = [];
  private waiters: Waiter[] = [];
  private exitOfRun: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly launch: ActorLaunch,
    private readonly workspace: string,
    private readonly maxRestarts: number,
    private readonly readyTimeoutMs: number,
    private readonly logger: FrayLogger,
    private readonly killGraceMs: number,
  ) {}

  state(): ActorState {
    return this.current;
  }

  deathReason(): string | undefined {
    return this.reason;
  }

  /** Starts the process and resolves once it serves. @throws {FrayError} FRAY_ACTOR_NOT_READY */
  async start(): Promise<void> {
    this.spawn();
    await this.waitForState((s) => s !== 'starting', Number.POSITIVE_INFINITY);
    if (this.current !== 'ready') {
      throw new FrayError('FRAY_ACTOR_NOT_READY', `actor "${this.name}" did not become ready: ${this.reason ?? 'unknown'}`, {
        details: { actor: this.name, tail: [...this.tail] },
      });
    }
  }

  private setState(s: ActorState): void {
    this.current = s;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private spawn(): void {
    const spawnedAt = this.restarts;
    let ready = false;
    const run = spawnProcessGroup({
      command: this.launch.command,
      args: this.launch.args,
      cwd: this.workspace,
      env: { ...process.env, ...this.launch.env, FRAY_WORKSPACE: this.workspace, [ACTOR_PARENT_PID_ENV]: String(process.pid) },
      onLine: (line, stream) => {
        if (stream === 'stdout' && line.startsWith(ACTOR_READY_PREFIX) && !ready) {
          ready = true;
          clearTimeout(timer);
          this.addr = (JSON.parse(line.slice(ACTOR_READY_PREFIX.length)) as { address: string }).address;
          if (!this.stopping) this.setState('ready');
          return;
        }
        this.tail.push(line);
        if (this.tail.length > TAIL_LINES) this.tail.shift();
        this.logger.info(`[actor ${this.name}] ${line}`);
      },
    });
    this.run = run;
    const timer = setTimeout(() => {
      if (ready) return;
      this.reason = `not serving within ${this.readyTimeoutMs} ms`;
      void run.terminate(this.killGraceMs);
    }, this.readyTimeoutMs);
    timer.unref();
    this.exitOfRun = run.outcome.then((outcome) => {
      clearTimeout(timer);
      this.addr = undefined;
      if (this.stopping) return;
      const how = outcome.kind === 'spawn-error' ? `could not start: ${outcome.error.message}` : `exited with code ${outcome.exitCode}`;
      if (!ready) {
        this.reason ??= how;
        this.reason = `${this.reason}${spawnedAt > 0 ? ` (restart ${spawnedAt})` : ''}`;
        this.setState('dead');
        return;
      }
      if (this.restarts < this.maxRestarts) {
        this.restarts += 1;
        this.logger.warn(`actor "${this.name}" ${how}; restarting (${this.restarts} of ${this.maxRestarts})`);
        this.setState('restarting');
        this.spawn();
        return;
      }
      this.reason = `${how}${this.maxRestarts > 0 ? ` after ${this.maxRestarts} restarts` : ''}`;
      this.setState('dead');
    });
  }

  /** Waits until `pred(state)` holds or `deadlineMs`; returns whether it holds. */
  private waitForState(pred: (s: ActorState) => boolean, deadlineMs: number, signal?: AbortSignal): Promise<boolean> {
    if (pred(this.current)) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const check: Waiter = () => {
        if (pred(this.current)) finish(true);
        else this.waiters.push(check);
      };
      const timer = Number.isFinite(deadlineMs) ? setTimeout(() => finish(false), Math.max(0, deadlineMs - Date.now())) : undefined;
      const abort = (): void => finish(false);
      signal?.addEventListener('abort', abort, { once: true });
      let done = false;
      const finish = (v: boolean): void => {
        if (done) return;
        done = true;
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve(v);
      };
      this.waiters.push(check);
    });
  }

  async address(deadlineMs: number, signal?: AbortSignal): Promise<string> {
    await this.waitForState((s) => s === 'ready' || s === 'dead', deadlineMs, signal);
    if (this.current === 'ready' && this.addr !== undefined) return this.addr;
    // A stopping actor is dead to new calls (its address is gone before its state says so).
    if (this.current === 'dead' || this.stopping) throw new FrayError('FRAY_ACTOR_DEAD', `actor "${this.name}" is dead: ${this.reason ?? 'stopped'}`, { details: { actor: this.name } });
    // Deadline or abort: the caller's bound reports it.
    return new Promise<string>(() => undefined);
  }

  async classifyFailure(deadlineMs: number): Promise<'dead' | 'unavailable'> {
    const until = Math.min(deadlineMs, Date.now() + EXIT_SETTLE_MS);
    await Promise.race([this.exitOfRun, new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())).unref())]);
    return this.current === 'dead' ? 'dead' : 'unavailable';
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.reason = 'stopped';
    await this.run?.terminate(this.killGraceMs);
    this.setState('dead');
  }
}

/**
 * The local actor backend: each actor is an OS process in its own process group on this machine, started with
 * the module runner (`tsx` and the `@marin/source` condition, as local module jobs run), supervised and restarted
 * per `maxRestarts`. Resources are not enforced.
 */
export function createLocalActorBackend(options: LocalActorBackendOptions = {}): ActorBackend {
  const logger = options.logger ?? stderrLogger;
  const killGraceMs = options.killGraceMs ?? 2000;
  let workspaceRoot = options.workspace;
  const workspace = (): string => (workspaceRoot ??= findWorkspaceRoot());
  const actors = new Set<LocalActorProcess>();
  let dir: string | undefined;
  let closed = false;
  const files = (): string => {
    if (dir === undefined) {
      dir = mkdtempSync(join(tmpdir(), 'fray-actors-'));
      writeFileSync(join(dir, MODULE_RUNNER_FILE), moduleRunnerSource());
    }
    return dir;
  };

  /** A TS actor runs `runActorHost` through the module runner; a Python one is the Python host process itself. */
  const launchOf = async (entry: AnyActorEntry, name: string, opts: CreateActorOptions): Promise<ActorLaunch> => {
    if (isPythonEntry(entry)) {
      const interpreter = await resolveLocalInterpreter(entry, name, options.pythonEnvCacheDir, (line) => logger.info(`[actor ${name}] [python-env] ${line}`));
      const { spec } = actorJobSpecOf(entry, name, opts, false);
      const python = { ...(spec.python as PythonHostSpec), interpreter };
      return { command: interpreter, args: pythonServeArgs(python, spec.args, name), env: pythonActorEnv(python, workspace(), process.env['PYTHONPATH']) };
    }
    const d = files();
    const spec: ActorHostSpec = { module: entry.module, exportName: entry.exportName, args: [...(opts.args ?? [])], name };
    const argsFile = join(d, `${name}.json`);
    writeFileSync(argsFile, JSON.stringify({ module: '@marin/fray', exportName: 'runActorHost', args: spec, spreadArgs: false }));
    return { command: process.execPath, args: [...moduleRunnerNodeFlags('@marin/fray'), join(d, MODULE_RUNNER_FILE), argsFile], env: {} };
  };

  const startOne = async (entry: AnyActorEntry, name: string, opts: CreateActorOptions): Promise<ActorHandle> => {
    if (closed) throw new FrayError('FRAY_BACKEND_UNAVAILABLE', 'the local actor backend is closed', { retryable: false });
    const actor = new LocalActorProcess(
      name,
      await launchOf(entry, name, opts),
      workspace(),
      opts.maxRestarts ?? 0,
      opts.readyTimeoutMs ?? DEFAULT_ACTOR_READY_TIMEOUT_MS,
      logger,
      killGraceMs,
    );
    actors.add(actor);
    try {
      await actor.start();
    } catch (e) {
      await actor.stop();
      actors.delete(actor);
      throw e;
    }
    return new ActorHandle(actor);
  };

  return actorBackendOf({
    backend: 'local',
    lowerCaseNames: false,
    startOne,
    async close() {
      closed = true;
      await Promise.all([...actors].map((a) => a.stop()));
      actors.clear();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  });
}
