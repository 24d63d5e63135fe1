import { Metadata, credentials } from '@grpc/grpc-js';
import type { ClientOptions } from '@grpc/grpc-js';
import { createAuthInterceptor } from '../wire/token-auth.js';
import { WorkerServiceClient } from '../gen/iris/v1/worker.js';
import type { ReconcileResponse } from '../gen/iris/v1/worker.js';
import type { ControllerState, ReconcilePlan } from './controller-state.js';

/** Timing and auth of the control loop. */
export interface ControlLoopConfig {
  /** Time between ticks when nothing wakes the loop earlier. */
  readonly reconcileIntervalMs: number;
  /** Deadline of each Reconcile call. */
  readonly reconcileRpcTimeoutMs: number;
  /** Terminal jobs older than this are pruned (checked once a minute). */
  readonly jobRetentionMs: number;
  /**
   * The controller's `workerUnreachableGraceMs`, sent to workers with every Reconcile so they start
   * tasks only while the controller still counts on them (0: no bound is sent).
   */
  readonly livenessGraceMs: number;
  /** Token sent to workers, when auth is on. */
  readonly authToken?: string | undefined;
  /** Errors of a tick (logged, never fatal). */
  readonly onError: (e: unknown) => void;
}

const PRUNE_EVERY_MS = 60_000;
/** The longest wait between ticks of an idle controller (no pending task, nothing to run or stop, nothing changed). */
export const IDLE_TICK_CEILING_MS = 1000;

/**
 * The single-writer control tick: one scheduling transaction over a consistent snapshot,
 * then Reconcile to every worker in parallel built only from committed state, then the observations
 * in a second idempotent transaction. RPCs are never retried inline: the next tick is the retry.
 */
export class ControlLoop {
  private readonly clients = new Map<string, WorkerServiceClient>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wakeRequested = false;
  private closed = false;
  private lastPruneMs = 0;
  /** Consecutive idle ticks: each doubles the wait before the next one, up to {@link IDLE_TICK_CEILING_MS}. */
  private idleTicks = 0;
  private tickCount = 0;
  /** Per worker, `worker_time_ms` of its latest accepted Reconcile response (echoed back, see `reconcile`). */
  private readonly acceptedWorkerTimeMs = new Map<string, number>();

  constructor(
    private readonly state: ControllerState,
    private readonly config: ControlLoopConfig,
  ) {}

  /** Starts ticking every `reconcileIntervalMs`. */
  start(): void {
    this.schedule(0);
  }

  /** Ticks run since start. */
  get ticks(): number {
    return this.tickCount;
  }

  /** Asks for a tick as soon as the current one ends (after LaunchJob, TerminateJob, Register…). */
  wake(): void {
    if (this.closed) return;
    this.idleTicks = 0;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, delayMs);
  }

  /** Runs one full tick now (or waits for the one in flight). Used directly by manual-tick tests. */
  tick(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.runTick().finally(() => {
      this.running = undefined;
      if (this.closed) return;
      const again = this.wakeRequested;
      this.wakeRequested = false;
      this.schedule(again ? 0 : this.nextDelayMs());
    });
    return this.running;
  }

  /**
   * The interval while there is work; while idle it doubles per idle tick up to the ceiling, so an idle
   * cluster costs next to nothing. Anything that creates work wakes the loop (`wake`), which resets it.
   */
  private nextDelayMs(): number {
    const base = this.config.reconcileIntervalMs;
    if (this.idleTicks === 0) return base;
    return Math.min(Math.max(base, IDLE_TICK_CEILING_MS), base * 2 ** Math.min(this.idleTicks, 20));
  }

  private async runTick(): Promise<void> {
    this.tickCount++;
    try {
      const scheduled = this.state.schedulingPass();
      const plans = this.state.planReconcile();
      const results = await Promise.all(plans.map((p) => this.reconcile(p)));
      let changed = false;
      plans.forEach((p, i) => {
        const result = results[i]!;
        if (this.state.applyReconcileResult(p, result)) changed = true;
        if ('response' in result) this.acceptedWorkerTimeMs.set(p.workerId, result.response.workerTimeMs);
      });
      const planned = new Set(plans.map((p) => p.workerId));
      for (const id of this.acceptedWorkerTimeMs.keys()) if (!planned.has(id)) this.acceptedWorkerTimeMs.delete(id);
      if (changed) this.wakeRequested = true;
      const idle = !changed && scheduled.pendingJobs.length === 0 && plans.every((p) => p.desired.length === 0);
      this.idleTicks = idle ? this.idleTicks + 1 : 0;
      const now = this.state.now();
      if (now - this.lastPruneMs >= PRUNE_EVERY_MS) {
        this.lastPruneMs = now;
        this.state.pruneJobs(this.config.jobRetentionMs);
      }
    } catch (e) {
      this.config.onError(e);
    }
  }

  private clientFor(address: string): WorkerServiceClient {
    let c = this.clients.get(address);
    if (!c) {
      const options: ClientOptions = this.config.authToken ? { interceptors: [createAuthInterceptor(this.config.authToken)] } : {};
      c = new WorkerServiceClient(address, credentials.createInsecure(), options);
      this.clients.set(address, c);
    }
    return c;
  }

  private reconcile(plan: ReconcilePlan): Promise<{ response: ReconcileResponse } | { error: unknown }> {
    return new Promise((resolve) => {
      const client = this.clientFor(plan.address);
      client.reconcile(
        {
          workerId: plan.workerId,
          desired: plan.desired,
          // Proof for the worker that the controller heard from it at its own time T, so it will not
          // be declared lost before T + grace (see worker/DESIGN.md, invariant 15).
          acceptedWorkerTimeMs: this.acceptedWorkerTimeMs.get(plan.workerId) ?? 0,
          livenessGraceMs: this.config.livenessGraceMs,
        },
        new Metadata(),
        { deadline: Date.now() + this.config.reconcileRpcTimeoutMs },
        (error, response) => resolve(error ? { error } : { response }),
      );
    });
  }

  /** Stops ticking, waits for the tick in flight and closes worker channels. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
