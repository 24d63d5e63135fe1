import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { exitStatusOf } from './exit-status.js';
import type { ExitStatus } from './exit-status.js';
import { isGroupAlive, signalGroup, terminateGroup, waitUntil } from './process-group.js';
import { processStartTime, readGroup, UsageTracker } from './resource-usage.js';
import type { ResourceUsage } from './resource-usage.js';

/** Options of {@link AttemptProcess.spawn}. */
export interface SpawnAttemptOptions {
  /** The command, run without a shell. */
  argv: readonly string[];
  /** Working directory. */
  cwd: string;
  /** The complete environment; nothing is inherited implicitly. */
  env: Readonly<Record<string, string>>;
  /** Receives every stdout/stderr line, without its line terminator. */
  onOutput: (source: 'stdout' | 'stderr', line: string) => void;
  /** How often the group's usage is sampled from `/proc`. @default 5000 */
  usageIntervalMs?: number;
}

/**
 * One OS process started in its own process group (`detached`), with its output read line by line,
 * its usage sampled and a stop that takes the whole group down.
 */
export class AttemptProcess {
  readonly pid: number;
  /** The process group; equal to `pid` because the process leads its own group. */
  readonly pgid: number;
  /** Start time of the leader in `/proc` clock ticks, so a recycled pid is never mistaken for it. */
  readonly startTime: number;
  readonly startedAtMs: number;
  /** Resolves once the leader exited, its output is drained and no process of the group is left. */
  readonly exited: Promise<ExitStatus>;

  readonly #tracker = new UsageTracker();
  readonly #sampler: NodeJS.Timeout;
  #leaderExited = false;

  private constructor(child: ChildProcess, options: SpawnAttemptOptions) {
    this.pid = child.pid as number;
    this.pgid = this.pid;
    this.startTime = processStartTime(this.pid) ?? 0;
    this.startedAtMs = Date.now();
    const stdoutDone = pipeLines(child.stdout as Readable, (line) => options.onOutput('stdout', line));
    const stderrDone = pipeLines(child.stderr as Readable, (line) => options.onOutput('stderr', line));
    this.#sampler = setInterval(() => this.sampleUsage(), options.usageIntervalMs ?? 5000);
    this.#sampler.unref();
    this.exited = new Promise<ExitStatus>((resolve) => {
      child.once('exit', (code, signal) => {
        this.#leaderExited = true;
        clearInterval(this.#sampler);
        const status = exitStatusOf(code, signal);
        // The attempt ends with its leader: background processes it left in the group would
        // otherwise hold ports, chips and the output pipes forever.
        signalGroup(this.pgid, 'SIGKILL');
        void waitUntil(() => !isGroupAlive(this.pgid), 30_000)
          .then(() => Promise.race([Promise.all([stdoutDone, stderrDone]), new Promise((r) => setTimeout(r, 2000))]))
          .then(() => resolve(status));
      });
    });
  }

  /**
   * Starts `argv` as the leader of a new process group.
   * @throws the spawn error (`ENOENT`, `EACCES`, …) when the command cannot be started
   */
  static spawn(options: SpawnAttemptOptions): Promise<AttemptProcess> {
    const [command, ...args] = options.argv;
    if (command === undefined) return Promise.reject(new Error('empty command'));
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('spawn', () => {
        child.off('error', reject);
        child.on('error', () => undefined); // later errors surface as the exit status
        resolve(new AttemptProcess(child, options));
      });
    });
  }

  /** True until the leader has exited. */
  get running(): boolean {
    return !this.#leaderExited;
  }

  /** Takes a fresh `/proc` sample of the group and returns the usage. */
  sampleUsage(): ResourceUsage {
    if (this.#leaderExited) return this.#tracker.usage;
    return this.#tracker.add(readGroup(this.pgid), Date.now());
  }

  /** The latest usage without sampling. */
  get usage(): ResourceUsage {
    return this.#tracker.usage;
  }

  /**
   * Stops the group: SIGTERM, `termTimeoutMs` of grace, then SIGKILL; resolves with the exit status
   * once everything is gone. Safe to call repeatedly and after the process ended.
   */
  async stop(termTimeoutMs: number): Promise<ExitStatus> {
    if (!this.#leaderExited) {
      await terminateGroup(this.pgid, {
        termTimeoutMs,
        isGone: () => this.#leaderExited && !isGroupAlive(this.pgid),
      });
    }
    return this.exited;
  }
}

/** Feeds a stream to `onLine` one line at a time; resolves when the stream ends. */
function pipeLines(stream: Readable, onLine: (line: string) => void): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const emit = (text: string): void => {
    pending += text;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      onLine(pending.slice(0, newline).replace(/\r$/, ''));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  };
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer) => emit(decoder.write(chunk)));
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      emit(decoder.end());
      if (pending !== '') onLine(pending.replace(/\r$/, ''));
      pending = '';
      resolve();
    };
    stream.once('end', finish);
    stream.once('error', finish);
  });
}
