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
  #anchorMs = 0;
  #graceMs = 0;
  #fenced = false;

  constructor(options: { taskLeaseMs: number }) {
    this.#taskLeaseMs = options.taskLeaseMs;
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
  }

  /**
   * The last wall-clock time (ms since the epoch) at which a task may be started: a task's lease
   * before the earliest moment the controller may declare this worker lost, so a task started just
   * before the daemon stalls is dead by then (invariant 10). At most half the grace is set aside
   * when the lease is (wrongly) longer than the grace.
   */
  startByMs(): number {
    if (!this.#fenced) return Number.MAX_SAFE_INTEGER;
    return this.#anchorMs + this.#graceMs - Math.min(this.#taskLeaseMs, Math.floor(this.#graceMs / 2));
  }

  /** Whether a task may be started now. */
  open(nowMs: number = Date.now()): boolean {
    return nowMs <= this.startByMs();
  }
}
