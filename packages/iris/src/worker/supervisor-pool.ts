import { IrisError } from '../errors.js';
import { TaskSupervisor } from './task-supervisor.js';

/** Options of {@link SupervisorPool}. */
export interface SupervisorPoolOptions {
  /** Supervisors started with the pool and waiting, so the first tasks do not wait for a Node start-up. @default 1 */
  warm?: number;
  /** Waiting supervisors kept at most; one that finishes a task beyond that exits. @default 16 */
  maxIdle?: number;
  /**
   * How long a task waits for a busy supervisor to come back before the pool starts another one, and
   * the least time between two such starts. @default 100
   */
  growAfterMs?: number;
  /** The supervisor program. @default `node bin/task-supervisor.mjs` (tests interpose on its pipes) */
  command?: readonly string[] | undefined;
}

interface Waiter {
  readonly sinceMs: number;
  readonly resolve: (supervisor: TaskSupervisor) => void;
  readonly reject: (e: Error) => void;
}

/**
 * A worker's task supervisors: a few started ahead of need, and each one reused for the next task
 * once its last task's output has been read. Taking a waiting supervisor costs nothing, so a task
 * start is one `spawn` instead of a Node start-up plus a spawn.
 *
 * When every supervisor is busy, a task first waits for one to come back, and the pool starts
 * another only once a task has waited {@link SupervisorPoolOptions.growAfterMs} (then at most one per
 * that interval). Short tasks arriving in a burst are thus served by the supervisors there are,
 * each freed within milliseconds, instead of a Node start-up each (a start-up costs about as much
 * CPU as a few dozen trivial tasks); long tasks wait that interval before their supervisor starts.
 * On a machine with few cores, start-ups side by side finish no sooner than one after another.
 * See DESIGN.md, "Task supervisor".
 */
export class SupervisorPool {
  readonly #idle: TaskSupervisor[] = [];
  readonly #waiters: Waiter[] = [];
  readonly #warm: number;
  readonly #maxIdle: number;
  readonly #growAfterMs: number;
  readonly #command: readonly string[] | undefined;
  #growTimer: NodeJS.Timeout | null = null;
  #lastStartMs = -Infinity;
  #closed = false;
  #started = 0;
  #acquired = 0;

  constructor(options: SupervisorPoolOptions = {}) {
    this.#warm = Math.max(0, options.warm ?? 1);
    this.#maxIdle = Math.max(this.#warm, options.maxIdle ?? 16);
    this.#growAfterMs = Math.max(0, options.growAfterMs ?? 100);
    this.#command = options.command;
    for (let n = 0; n < this.#warm; n++) {
      const supervisor = this.#start();
      supervisor.setRef(false);
      this.#idle.push(supervisor);
    }
  }

  /** Waiting supervisors (for tests and figures). */
  get idleCount(): number {
    return this.#idle.filter((s) => s.alive).length;
  }

  /** The pids of the waiting supervisors. */
  get idlePids(): number[] {
    return this.#idle.filter((s) => s.alive).map((s) => s.pid);
  }

  /** Tasks waiting for a supervisor. */
  get waitingCount(): number {
    return this.#waiters.length;
  }

  /**
   * A supervisor for one task: a waiting one, else the first busy one to come back, else (after
   * `growAfterMs`) a new one. It comes back by itself once its task is over.
   * @throws {IrisError} IRIS_UNAVAILABLE once the pool is closed
   */
  acquire(): Promise<TaskSupervisor> {
    if (this.#closed) return Promise.reject(new IrisError('IRIS_UNAVAILABLE', 'the worker is shutting down'));
    this.#acquired += 1;
    let supervisor: TaskSupervisor | undefined;
    while ((supervisor = this.#idle.pop()) !== undefined && !supervisor.alive);
    if (supervisor !== undefined) {
      supervisor.setRef(true);
      return Promise.resolve(supervisor);
    }
    return new Promise((resolve, reject) => {
      this.#waiters.push({ sinceMs: performance.now(), resolve, reject });
      this.#scheduleGrowth();
    });
  }

  /** Supervisors started and tasks handed out so far (how well the pool reuses its processes). */
  get stats(): { started: number; acquired: number } {
    return { started: this.#started, acquired: this.#acquired };
  }

  /** Ends every waiting supervisor, and each busy one once its task is over; tasks still waiting get IRIS_UNAVAILABLE. */
  close(): void {
    this.#closed = true;
    if (this.#growTimer !== null) clearTimeout(this.#growTimer);
    this.#growTimer = null;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(new IrisError('IRIS_UNAVAILABLE', 'the worker is shutting down'));
    for (const supervisor of this.#idle.splice(0)) supervisor.retire();
  }

  #start(): TaskSupervisor {
    this.#started += 1;
    this.#lastStartMs = performance.now();
    const supervisor = TaskSupervisor.start(this.#command);
    supervisor.onReady = () => this.#giveBack(supervisor);
    return supervisor;
  }

  #giveBack(supervisor: TaskSupervisor): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined && supervisor.alive) {
      waiter.resolve(supervisor);
      return;
    }
    if (waiter !== undefined) this.#waiters.unshift(waiter);
    // A waiting supervisor must not keep its daemon's process alive.
    supervisor.setRef(false);
    if (this.#closed || this.#idle.length >= this.#maxIdle) supervisor.retire();
    else this.#idle.push(supervisor);
  }

  /** Starts a supervisor for the oldest waiting task once it has waited long enough, one per interval. */
  #scheduleGrowth(): void {
    if (this.#growTimer !== null || this.#closed) return;
    const oldest = this.#waiters[0];
    if (oldest === undefined) return;
    const now = performance.now();
    const dueMs = Math.max(oldest.sinceMs, this.#lastStartMs) + this.#growAfterMs;
    this.#growTimer = setTimeout(() => {
      this.#growTimer = null;
      const waiter = this.#waiters[0];
      if (waiter === undefined || this.#closed) return;
      const at = performance.now();
      if (at - waiter.sinceMs >= this.#growAfterMs && at - this.#lastStartMs >= this.#growAfterMs) {
        this.#waiters.shift();
        const supervisor = this.#start();
        supervisor.setRef(true);
        waiter.resolve(supervisor);
      }
      this.#scheduleGrowth();
    }, Math.max(0, dueMs - now));
    this.#growTimer.unref();
  }
}
