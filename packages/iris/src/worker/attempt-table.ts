import { StopReason, TaskState } from '../gen/iris/v1/types.js';
import type { RunTaskRequest } from '../gen/iris/v1/types.js';
import type { AttemptObservation, DesiredAttempt } from '../gen/iris/v1/worker.js';
import type { ReconcilableAttempt } from './attempt.js';

/** Creates (but does not start) an attempt from its spec. */
export type AttemptFactory = (spec: RunTaskRequest) => ReconcilableAttempt;

/**
 * The worker's side of the reconcile protocol: every call gets the controller's complete
 * desired set for this worker and answers with observations of exactly those uids plus this
 * call's zombies. See DESIGN.md for the invariants.
 */
export class AttemptTable {
  readonly #attempts = new Map<string, ReconcilableAttempt>();
  /** Zombies already reported once; they are killed but never reported again. */
  readonly #reportedZombies = new Set<string>();
  readonly #create: AttemptFactory;
  readonly #onZombie: ((uid: string) => void) | undefined;
  readonly #mayStart: () => boolean;

  /**
   * @param options.mayStart whether a new attempt may be started now (the worker's start fence,
   * invariant 15); when it says no, the attempt is answered PENDING and started from a later call.
   */
  constructor(options: { create: AttemptFactory; onZombie?: (uid: string) => void; mayStart?: () => boolean }) {
    this.#create = options.create;
    this.#onZombie = options.onZombie;
    this.#mayStart = options.mayStart ?? (() => true);
  }

  /** Attempts that are not yet terminal. */
  get liveCount(): number {
    let n = 0;
    for (const a of this.#attempts.values()) if (a.live) n += 1;
    return n;
  }

  /** The attempt with `uid`, if this worker knows it. */
  get(uid: string): ReconcilableAttempt | undefined {
    return this.#attempts.get(uid);
  }

  /** Applies one desired set and returns the observations to send back. */
  reconcile(desired: readonly DesiredAttempt[]): AttemptObservation[] {
    const observed: AttemptObservation[] = [];
    const wanted = new Set<string>();
    // A worker that comes back after the controller gave up on it still runs attempts nobody wants
    // any more; it takes no new work until they are dead (their processes hold real resources).
    const desiredUids = new Set(desired.map((d) => d.attemptUid));
    const zombiesAlive = [...this.#attempts.values()].some((a) => a.live && !desiredUids.has(a.uid));
    // A call acted on long after the controller sent it (the daemon was stopped) may want attempts the
    // controller has since placed elsewhere; only a call that proves recent contact starts anything.
    const mayStart = this.#mayStart();
    for (const d of desired) {
      if (wanted.has(d.attemptUid)) continue;
      wanted.add(d.attemptUid);
      const known = this.#attempts.get(d.attemptUid);
      const intent = d.intent;
      if (intent?.$case === 'stop') {
        if (known === undefined) {
          // Never ran here (or forgotten after a restart): nothing to kill, so it is already over.
          observed.push(bare(d.attemptUid, TaskState.TASK_STATE_KILLED, 'not running on this worker'));
          continue;
        }
        if (known.live) void known.stop(intent.value);
        observed.push(known.observe());
        continue;
      }
      if (known !== undefined) {
        observed.push(known.observe()); // a terminal state is sticky: never restarted
        continue;
      }
      const request = intent?.$case === 'run' ? intent.value.request : undefined;
      if (request === undefined || request.attemptUid !== d.attemptUid) {
        observed.push(bare(d.attemptUid, TaskState.TASK_STATE_MISSING, 'worker has no spec for this attempt'));
        continue;
      }
      if (zombiesAlive) {
        // Not started yet: PENDING never regresses the controller's ASSIGNED, which resends the spec.
        observed.push(bare(d.attemptUid, TaskState.TASK_STATE_PENDING, 'waiting for undesired attempts to die'));
        continue;
      }
      if (!mayStart) {
        observed.push(bare(d.attemptUid, TaskState.TASK_STATE_PENDING, 'waiting for the controller to confirm contact'));
        continue;
      }
      const attempt = this.#create(request);
      this.#attempts.set(d.attemptUid, attempt);
      attempt.start();
      observed.push(attempt.observe());
    }
    for (const [uid, attempt] of this.#attempts) {
      if (wanted.has(uid)) continue;
      if (attempt.live) {
        if (!this.#reportedZombies.has(uid)) {
          this.#reportedZombies.add(uid);
          this.#onZombie?.(uid);
          void attempt.stop(StopReason.STOP_REASON_SUPERSEDED);
          observed.push(attempt.observe());
        }
        continue;
      }
      // Terminal and no longer listed: the controller has what it needs.
      attempt.release?.();
      this.#attempts.delete(uid);
      this.#reportedZombies.delete(uid);
    }
    return observed;
  }

  /** Releases the supervisors of attempts this worker stopped (daemon shutdown): nothing is left to report. */
  releaseStopped(): void {
    for (const attempt of this.#attempts.values()) if (attempt.stoppedByWorker === true) attempt.release?.();
  }

  /** Stops every live attempt (daemon shutdown) and waits until all are terminal. */
  async stopAll(reason: StopReason = StopReason.STOP_REASON_WORKER_DRAIN): Promise<void> {
    await Promise.all([...this.#attempts.values()].filter((a) => a.live).map((a) => a.stop(reason)));
  }
}

function bare(uid: string, state: TaskState, error: string): AttemptObservation {
  return { attemptUid: uid, state, exitCode: 0, error, startedAtMs: 0, finishedAtMs: 0, ports: {} };
}
