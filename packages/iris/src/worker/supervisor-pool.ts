import { TaskSupervisor } from './task-supervisor.js';

/** Options of {@link SupervisorPool}. */
export interface SupervisorPoolOptions {
  /** Supervisors kept started and waiting, so a task start does not wait for a Node start-up. @default 1 */
  warm?: number;
  /** Waiting supervisors kept at most; one that finishes a task beyond that exits. @default 16 */
  maxIdle?: number;
  /** The supervisor program. @default `node bin/task-supervisor.mjs` (tests interpose on its pipes) */
  command?: readonly string[] | undefined;
}

/**
 * A worker's task supervisors: a few started ahead of need, and each one reused for the next task
 * once the controller has its last task's outcome. Taking a waiting supervisor costs nothing, so a
 * task start is one `spawn` instead of a Node start-up plus a spawn. See DESIGN.md, "Task supervisor".
 */
export class SupervisorPool {
  readonly #idle: TaskSupervisor[] = [];
  readonly #warm: number;
  readonly #maxIdle: number;
  readonly #command: readonly string[] | undefined;
  #closed = false;
  #started = 0;
  #acquired = 0;

  constructor(options: SupervisorPoolOptions = {}) {
    this.#warm = Math.max(0, options.warm ?? 1);
    this.#maxIdle = Math.max(this.#warm, options.maxIdle ?? 16);
    this.#command = options.command;
    this.#topUp();
  }

  /** Waiting supervisors (for tests and figures). */
  get idleCount(): number {
    return this.#idle.filter((s) => s.alive).length;
  }

  /** The pids of the waiting supervisors. */
  get idlePids(): number[] {
    return this.#idle.filter((s) => s.alive).map((s) => s.pid);
  }

  /** A supervisor for one task: a waiting one, or a new one when none waits. It comes back by itself. */
  acquire(): TaskSupervisor {
    let supervisor: TaskSupervisor | undefined;
    while ((supervisor = this.#idle.pop()) !== undefined && !supervisor.alive);
    this.#acquired += 1;
    if (supervisor === undefined) {
      // None waits: this task pays for a start-up. Starting spares as well would only add start-ups
      // while every supervisor is busy; the ones in use come back when the controller has their outcomes.
      supervisor = this.#start();
    } else if (this.#idle.length === 0) {
      this.#topUp();
    }
    supervisor.setRef(true);
    return supervisor;
  }

  /** Supervisors started and tasks handed out so far (how well the pool reuses its processes). */
  get stats(): { started: number; acquired: number } {
    return { started: this.#started, acquired: this.#acquired };
  }

  /** Ends every waiting supervisor, and each busy one once its task is over. */
  close(): void {
    this.#closed = true;
    for (const supervisor of this.#idle.splice(0)) supervisor.retire();
  }

  #start(): TaskSupervisor {
    this.#started += 1;
    const supervisor = TaskSupervisor.start(this.#command);
    supervisor.onReady = () => this.#giveBack(supervisor);
    return supervisor;
  }

  #giveBack(supervisor: TaskSupervisor): void {
    // A waiting supervisor must not keep its daemon's process alive.
    supervisor.setRef(false);
    if (this.#closed || this.#idle.length >= this.#maxIdle) supervisor.retire();
    else this.#idle.push(supervisor);
  }

  #topUp(): void {
    if (this.#closed) return;
    for (let n = this.idleCount; n < this.#warm; n++) {
      const supervisor = this.#start();
      supervisor.setRef(false);
      this.#idle.unshift(supervisor);
    }
  }
}
