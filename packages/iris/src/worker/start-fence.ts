/**
 * How long this worker may still start task processes, from what the controller has proven it heard.
 *
 * The controller declares a worker lost no sooner than its liveness grace after the last Reconcile
 * response it accepted (or after the worker's `Register` reached it). Each Reconcile echoes that
 * response's `worker_time_ms`, a time on this worker's own clock taken before the response was sent,
 * so `accepted + grace` is a point this worker can trust the controller not to have given up on it
 * before. A request that sat in a socket buffer while the daemon was stopped carries an old echo, so
 * acting on it late cannot start a task the controller has already placed elsewhere. See DESIGN.md,
 * invariant 15.
 */
export class StartFence {
  readonly #taskLeaseMs: number;
  readonly #warn: (message: string) => void;
  #anchorMs = 0;
  #graceMs = 0;
  #fenced = false;
  #warnedForGraceMs = 0;

  constructor(options: { taskLeaseMs: number; warn?: ((message: string) => void) | undefined }) {
    this.#taskLeaseMs = options.taskLeaseMs;
    this.#warn = options.warn ?? ((m) => console.warn(`[iris worker] ${m}`));
  }

  /** An accepted `Register` that this worker sent at `sentAtMs`. */
  registered(sentAtMs: number): void {
    this.#anchorMs = Math.max(this.#anchorMs, sentAtMs);
  }

  /** A Reconcile request's echo; `graceMs` 0 comes from a controller that sends no bound. */
  reconciled(request: { acceptedWorkerTimeMs: number; livenessGraceMs: number }): void {
    this.#anchorMs = Math.max(this.#anchorMs, request.acceptedWorkerTimeMs);
    if (request.livenessGraceMs <= 0) return;
    this.#fenced = true;
    this.#graceMs = request.livenessGraceMs;
    const lease = this.taskLeaseMs();
    if (lease < this.#taskLeaseMs && this.#warnedForGraceMs !== this.#graceMs) {
      this.#warnedForGraceMs = this.#graceMs;
      this.#warn(
        `task lease ${this.#taskLeaseMs} ms (IRIS_TASK_LEASE_MS) is not well below the controller's liveness grace ${this.#graceMs} ms (IRIS_WORKER_UNREACHABLE_GRACE_MS); using ${lease} ms, so a stalled worker's tasks die and report before the controller gives up on it`,
      );
    }
  }

  /**
   * The lease a task's supervisor gets: the configured one, but never more than a third of the
   * controller's liveness grace (`MAX_LEASE_SHARE_OF_GRACE`), so a stalled daemon's tasks are dead, and
   * their outcomes reported, before the controller may declare the worker lost and run them elsewhere.
   * Whatever the env says, a lease at or past the grace would let a body run twice.
   */
  taskLeaseMs(): number {
    if (!this.#fenced) return this.#taskLeaseMs;
    return Math.max(MIN_TASK_LEASE_MS, Math.min(this.#taskLeaseMs, Math.floor(this.#graceMs * MAX_LEASE_SHARE_OF_GRACE)));
  }

  /**
   * The last wall-clock time (ms since the epoch) at which a task may be started: a task's lease
   * before the earliest moment the controller may declare this worker lost, so a task started just
   * before the daemon stalls is dead by then (invariant 10).
   */
  startByMs(): number {
    if (!this.#fenced) return Number.MAX_SAFE_INTEGER;
    return this.#anchorMs + this.#graceMs - this.taskLeaseMs();
  }

  /** Whether a task may be started now. */
  open(nowMs: number = Date.now()): boolean {
    return nowMs <= this.startByMs();
  }
}

/** The largest share of the controller's liveness grace a task lease may take. */
export const MAX_LEASE_SHARE_OF_GRACE = 1 / 3;
/** A lease shorter than this would have supervisors kill healthy tasks between two renewals. */
const MIN_TASK_LEASE_MS = 100;
