import { randomBytes } from 'node:crypto';
import { isProcessGroupAlive, pollUntil, signalProcessGroup, terminateProcessGroup } from '@marin/rigging';
import { exitStatusOf } from './exit-status.js';
import type { ExitStatus } from './exit-status.js';
import { processStartTime, readGroup, UsageTracker } from './resource-usage.js';
import type { ResourceUsage } from './resource-usage.js';
import type { SupervisorPool } from './supervisor-pool.js';
import { TaskSupervisor } from './task-supervisor.js';

/** Who the supervisor reports to when the daemon cannot, and how long the daemon's lease lasts. */
export interface SupervisorOptions {
  workerId: string;
  attemptUid: string;
  controllerAddress: string;
  /** The supervisor kills the task when the daemon has not renewed its lease for this long. */
  leaseMs: number;
  /** How long a supervisor keeps trying to report an outcome to the controller. */
  reportTimeoutMs: number;
  /**
   * The supervisor does not start the task after this wall-clock time (ms since the epoch), even
   * when it was itself slow to start; it reports the spawn error `START_EXPIRED` instead.
   * @default no bound
   */
  startByMs?: number | undefined;
}

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
  /**
   * Who the supervisor reports to. Without it (setup commands) the supervisor still kills the
   * process when the daemon dies or stalls for {@link DEFAULT_LEASE_MS}, but reports nothing and
   * exits with its process.
   */
  supervisor?: SupervisorOptions | undefined;
  /**
   * Where the supervisor comes from: a worker's pool of supervisors (the task may wait there for a
   * busy one to come back), or (without one) a supervisor started for this process alone, which
   * exits once its task is over.
   */
  supervisors?: SupervisorPool | undefined;
}

/** The lease of processes spawned without {@link SupervisorOptions}. */
export const DEFAULT_LEASE_MS = 10_000;

/** How an attempt's process ended. */
export interface AttemptExit extends ExitStatus {
  /**
   * Set when the task did not end on its own or by a stop: its supervisor killed it because the
   * daemon stopped renewing the lease, or the supervisor itself vanished. A worker fault.
   */
  readonly workerFault?: string | undefined;
}

/**
 * One task process started by a supervisor (`bin/task-supervisor.mjs`) in a new process group, with its output read line by line, its usage sampled, a lease the daemon renews, and a stop
 * that takes the whole group down. The supervisor kills the group when the daemon dies or stops
 * renewing, and reports the outcome to the controller itself if the daemon cannot; see DESIGN.md.
 */
export class AttemptProcess {
  /** The task's pid (not the supervisor's). */
  readonly pid: number;
  /** The task's process group; equal to `pid` because the task leads its own group. */
  readonly pgid: number;
  /** Start time of the leader in `/proc` clock ticks, so a recycled pid is never mistaken for it. */
  readonly startTime: number;
  readonly startedAtMs: number;
  /** The supervisor's pid and `/proc` start time. */
  readonly supervisorPid: number;
  readonly supervisorStartTime: number;
  /** Resolves once the task exited, its output is drained and no process of its group is left. */
  readonly exited: Promise<AttemptExit>;

  readonly #tracker = new UsageTracker();
  readonly #sampler: NodeJS.Timeout;
  readonly #renewer: NodeJS.Timeout;
  readonly #supervisor: TaskSupervisor;
  readonly #attemptUid: string;
  #leaderExited = false;
  #released = false;

  private constructor(
    supervisor: TaskSupervisor,
    pid: number,
    control: Promise<AttemptExit>,
    output: Promise<unknown>,
    options: SpawnAttemptOptions,
    config: SupervisorOptions,
  ) {
    this.pid = pid;
    this.pgid = pid;
    this.startTime = processStartTime(pid) ?? 0;
    this.startedAtMs = Date.now();
    this.supervisorPid = supervisor.pid;
    this.supervisorStartTime = supervisor.startTime;
    this.#supervisor = supervisor;
    this.#attemptUid = config.attemptUid;
    this.#sampler = setInterval(() => this.sampleUsage(), options.usageIntervalMs ?? 5000);
    this.#sampler.unref();
    const leaseMs = options.supervisor?.leaseMs ?? DEFAULT_LEASE_MS;
    this.#renewer = setInterval(() => supervisor.renew(), Math.max(10, Math.floor(leaseMs / 4)));
    this.#renewer.unref();
    this.exited = control.then(async (status) => {
      this.#leaderExited = true;
      clearInterval(this.#sampler);
      // The attempt ends with its leader: background processes it left in the group would
      // otherwise hold ports, chips and the output pipes forever.
      signalProcessGroup(this.pgid, 'SIGKILL');
      await pollUntil(() => !isProcessGroupAlive(this.pgid), { timeoutMs: 30_000 });
      // The supervisor marks the end of the task's output once the group is gone (or after 2 s).
      await output;
      // Without a controller to report to, the supervisor holds no outcome and needs no lease any more.
      if (config.controllerAddress === '') clearInterval(this.#renewer);
      return status;
    });
  }

  /**
   * Starts `argv` under a supervisor, as the leader of a new process group.
   * @throws an error with the spawn error's `code` (`ENOENT`, `EACCES`, …) when the command cannot be started
   */
  static async spawn(options: SpawnAttemptOptions): Promise<AttemptProcess> {
    const config = options.supervisor ?? { workerId: '', attemptUid: '', controllerAddress: '', leaseMs: DEFAULT_LEASE_MS, reportTimeoutMs: 0 };
    const supervisor = options.supervisors !== undefined ? await options.supervisors.acquire() : oneShot();
    const marker = randomBytes(12).toString('hex');
    const output = Promise.all([
      supervisor.stdout.begin(marker, (line) => options.onOutput('stdout', line)),
      supervisor.stderr.begin(marker, (line) => options.onOutput('stderr', line)),
    ]);
    let resolveExit: (exit: AttemptExit) => void = () => undefined;
    const exit = new Promise<AttemptExit>((resolve) => (resolveExit = resolve));
    return new Promise((resolve, reject) => {
      let started = false;
      supervisor.run({ ...config, argv: options.argv, cwd: options.cwd, env: options.env, marker }, (message) => {
        if ('started' in message) {
          started = true;
          resolve(new AttemptProcess(supervisor, message.started.pid, exit, output, options, config));
        } else if ('spawnError' in message) {
          // The daemon reports the failure itself; the supervisor need not hold on to it.
          supervisor.acknowledge(config.attemptUid);
          reject(Object.assign(new Error(`cannot start "${options.argv[0] ?? ''}": ${message.spawnError}`), { code: message.spawnError }));
        } else if ('exit' in message) {
          const status = exitStatusOf(message.exit.code, message.exit.signal);
          resolveExit(message.lost !== null && status.signal === 'SIGKILL' ? { ...status, workerFault: `killed by its supervisor: ${message.lost}` } : status);
        } else {
          if (!started) reject(new Error('task supervisor exited before starting the task'));
          // Normally a no-op (the exit line came first); a supervisor killed from outside leaves the task unsupervised.
          resolveExit({ ...exitStatusOf(null, 'SIGKILL'), workerFault: 'task supervisor died' });
        }
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
   * Tells the supervisor the controller has the outcome, so it exits instead of reporting it.
   * Until then a supervisor outlives its task and reports the outcome itself should the daemon die.
   */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#renewer);
    this.#supervisor.acknowledge(this.#attemptUid);
  }

  /**
   * Stops the group: SIGTERM, `termTimeoutMs` of grace, then SIGKILL; resolves with the exit status
   * once everything is gone. Safe to call repeatedly and after the process ended.
   */
  async stop(termTimeoutMs: number): Promise<AttemptExit> {
    if (!this.#leaderExited) {
      await terminateProcessGroup(this.pgid, {
        graceMs: termTimeoutMs,
        isGone: () => this.#leaderExited && !isProcessGroupAlive(this.pgid),
      });
    }
    return this.exited;
  }
}

/** A supervisor for one task, which exits once that task is over and its outcome acknowledged. */
function oneShot(): TaskSupervisor {
  const supervisor = TaskSupervisor.start();
  supervisor.onReady = () => supervisor.retire();
  return supervisor;
}
