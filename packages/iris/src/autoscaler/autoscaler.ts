import { buildSchedulingInput, committedByWorker } from '../controller/scheduling.js';
import type { ControllerState } from '../controller/controller-state.js';
import { IrisError } from '../errors.js';
import type { Platform } from './platforms/platform.js';
import { vmCountOf } from './platforms/platform.js';
import type { AutoscalerTimings, ScaleGroupConfig } from './cluster-config.js';
import { computeDemand } from './demand.js';
import { planScaling } from './scaling-plan.js';
import type { GroupView, SliceView } from './scaling-plan.js';
import { LIVE_SLICE_STATES } from './slice-state.js';
import type { SliceState } from './slice-state.js';

/** Options of {@link Autoscaler}. */
export interface AutoscalerOptions {
  readonly state: ControllerState;
  readonly groups: readonly ScaleGroupConfig[];
  readonly timings: AutoscalerTimings;
  /** The platform each group runs on, by group name. */
  readonly platformOf: ReadonlyMap<string, Platform>;
  /** Platform name per group, for status. */
  readonly platformNameOf: ReadonlyMap<string, string>;
  /** Address the slices' workers dial. */
  readonly controllerAddress: string;
  readonly authToken?: string | undefined;
  /** Where create and delete failures go. @default console.warn */
  readonly warn?: (message: string) => void;
}

interface SliceRecord {
  readonly sliceId: string;
  readonly group: string;
  readonly vmCount: number;
  state: SliceState;
  readonly createdAtMs: number;
  stateSinceMs: number;
  idleSinceMs: number | null;
  workersRegistered: number;
  error: string;
}

interface GroupRecord {
  readonly config: ScaleGroupConfig;
  backoffUntilMs: number;
  demandSinceMs: number | null;
  consecutiveFailures: number;
  failureTimesMs: number[];
  churning: boolean;
  lastError: string;
  createAttempts: number;
  routedDemand: number;
  heldBack: string;
}

/** A snapshot of the autoscaler for `iris cluster status` (times in ms since epoch). */
export interface AutoscalerStatus {
  readonly evaluatedAtMs: number;
  readonly groups: readonly {
    readonly name: string;
    readonly platform: string;
    readonly priority: number;
    readonly minSlices: number;
    readonly maxSlices: number;
    readonly bufferSlices: number;
    readonly backoffUntilMs: number;
    readonly consecutiveFailures: number;
    readonly churning: boolean;
    readonly lastError: string;
    readonly createAttempts: number;
    readonly routedDemand: number;
    readonly heldBack: string;
  }[];
  readonly slices: readonly {
    readonly sliceId: string;
    readonly group: string;
    readonly state: SliceState;
    readonly createdAtMs: number;
    readonly stateSinceMs: number;
    readonly workersRegistered: number;
    readonly vmCount: number;
    readonly error: string;
  }[];
  readonly unmet: readonly { readonly jobId: string; readonly tasks: number; readonly reason: string }[];
}

const TERMINAL_KEEP_MS = 10 * 60_000;

/**
 * Runs the autoscaler next to the control loop. Each evaluation reads one snapshot of the controller
 * state, refreshes every slice's lifecycle state from the workers that registered for it, computes
 * demand with a scheduler dry run, runs the pure `planScaling` kernel and starts the creates and
 * deletes it decided. Platform calls run in the background; a REQUESTING slice counts against the
 * global create cap until its call returns. Invariants: `DESIGN.md` in this folder.
 */
export class Autoscaler implements AsyncDisposable {
  private readonly groups = new Map<string, GroupRecord>();
  private readonly slices = new Map<string, SliceRecord>();
  private readonly inflight = new Set<Promise<unknown>>();
  private unmet: AutoscalerStatus['unmet'] = [];
  private evaluatedAtMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private seq = 0;

  constructor(private readonly options: AutoscalerOptions) {
    for (const g of options.groups) {
      this.groups.set(g.name, {
        config: g,
        backoffUntilMs: 0,
        demandSinceMs: null,
        consecutiveFailures: 0,
        failureTimesMs: [],
        churning: false,
        lastError: '',
        createAttempts: 0,
        routedDemand: 0,
        heldBack: '',
      });
    }
  }

  /** Adopts the slices the platforms still hold (a restarted controller), then evaluates every `evaluation_interval_ms`. */
  async start(): Promise<void> {
    const now = this.options.state.now();
    const seen = new Set<Platform>();
    for (const platform of this.options.platformOf.values()) {
      if (seen.has(platform)) continue;
      seen.add(platform);
      for (const s of await platform.listSlices()) {
        const group = this.groups.get(s.group);
        if (!group || this.slices.has(s.sliceId)) continue;
        const state: SliceState = s.status === 'preempted' ? 'PREEMPTED' : s.status === 'failed' ? 'UNHEALTHY' : 'BOOTING';
        this.slices.set(s.sliceId, { sliceId: s.sliceId, group: s.group, vmCount: vmCountOf(group.config), state, createdAtMs: now, stateSinceMs: now, idleSinceMs: null, workersRegistered: 0, error: '' });
      }
    }
    const loop = () => {
      if (this.closed) return;
      this.timer = setTimeout(() => {
        void this.evaluate()
          .catch((e: unknown) => this.warn(`autoscaler evaluation failed: ${e instanceof Error ? e.message : String(e)}`))
          .finally(loop);
      }, this.options.timings.evaluation_interval_ms);
    };
    await this.evaluate();
    loop();
  }

  private warn(message: string): void {
    (this.options.warn ?? ((m: string) => console.warn(`[iris autoscaler] ${m}`)))(message);
  }

  private setState(slice: SliceRecord, state: SliceState, now: number): void {
    if (slice.state === state) return;
    slice.state = state;
    slice.stateSinceMs = now;
  }

  /** One evaluation: refresh slice states, plan, start creates and deletes. Returns once the calls are started. */
  async evaluate(): Promise<void> {
    if (this.closed) return;
    const state = this.options.state;
    const now = state.now();
    const committed = committedByWorker(state.store);
    const input = buildSchedulingInput(state.store, now, {}, committed);
    this.refreshSlices(input.workers, committed, now);
    await this.refreshFromPlatforms(now);

    const plan = planScaling({
      nowMs: now,
      timings: this.options.timings,
      groups: [...this.groups.values()].map((g): GroupView => ({ config: g.config, backoffUntilMs: g.backoffUntilMs, demandSinceMs: g.demandSinceMs })),
      slices: [...this.slices.values()].map((s): SliceView => ({ sliceId: s.sliceId, group: s.group, state: s.state, createdAtMs: s.createdAtMs, idleSinceMs: s.idleSinceMs })),
      demand: computeDemand(input),
    });
    this.evaluatedAtMs = now;
    const unmetByJob = new Map<string, { jobId: string; tasks: number; reason: string }>();
    for (const u of plan.unmet) {
      const prev = unmetByJob.get(u.entry.jobId);
      if (prev) prev.tasks += u.entry.taskIds.length;
      else unmetByJob.set(u.entry.jobId, { jobId: u.entry.jobId, tasks: u.entry.taskIds.length, reason: u.reason });
    }
    this.unmet = [...unmetByJob.values()];

    for (const d of plan.deletes) {
      const slice = this.slices.get(d.sliceId);
      if (!slice) continue;
      if (d.failure) this.recordFailure(slice.group, `slice ${slice.sliceId}: ${d.reason}`, now);
      slice.error = d.reason;
      this.deleteSlice(slice, now);
    }
    for (const g of plan.groups) {
      const group = this.groups.get(g.group)!;
      group.routedDemand = g.routedEntries;
      group.heldBack = g.heldBack ?? '';
      group.demandSinceMs = g.neededSlices > 0 ? (group.demandSinceMs ?? now) : null;
      for (let i = 0; i < g.create; i++) this.createSlice(group, now);
    }
  }

  private refreshSlices(workers: readonly { workerId: string; healthy: boolean; attributes: Readonly<Record<string, string | number>> }[], committed: ReturnType<typeof committedByWorker>, now: number): void {
    const bySlice = new Map<string, { registered: number; busy: boolean }>();
    for (const w of workers) {
      const id = w.attributes['slice-id'];
      if (typeof id !== 'string' || !w.healthy) continue;
      const cur = bySlice.get(id) ?? { registered: 0, busy: false };
      cur.registered += 1;
      if ((committed.get(w.workerId)?.running ?? 0) > 0) cur.busy = true;
      bySlice.set(id, cur);
    }
    for (const slice of this.slices.values()) {
      if (!['BOOTING', 'INITIALIZING', 'READY', 'UNHEALTHY'].includes(slice.state)) continue;
      const seen = bySlice.get(slice.sliceId) ?? { registered: 0, busy: false };
      slice.workersRegistered = seen.registered;
      if (seen.registered >= slice.vmCount) {
        if (slice.state !== 'READY') this.groups.get(slice.group)!.consecutiveFailures = 0;
        this.setState(slice, 'READY', now);
        slice.idleSinceMs = seen.busy ? null : (slice.idleSinceMs ?? now);
      } else {
        slice.idleSinceMs = null;
        if (slice.state === 'READY' || slice.state === 'UNHEALTHY') this.setState(slice, 'UNHEALTHY', now);
        else this.setState(slice, seen.registered > 0 ? 'INITIALIZING' : 'BOOTING', now);
      }
    }
    for (const [id, slice] of this.slices) {
      if (!LIVE_SLICE_STATES.has(slice.state) && slice.state !== 'STOPPING' && now - slice.stateSinceMs > TERMINAL_KEEP_MS) this.slices.delete(id);
    }
  }

  private async refreshFromPlatforms(now: number): Promise<void> {
    const seen = new Set<Platform>();
    for (const platform of this.options.platformOf.values()) {
      if (seen.has(platform)) continue;
      seen.add(platform);
      let listed;
      try {
        listed = await platform.listSlices();
      } catch (e) {
        this.warn(`cannot list ${platform.kind} slices: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      for (const s of listed) {
        const slice = this.slices.get(s.sliceId);
        if (!slice || !['BOOTING', 'INITIALIZING', 'READY', 'UNHEALTHY'].includes(slice.state)) continue;
        if (s.status === 'preempted') {
          this.setState(slice, 'PREEMPTED', now);
          this.track(platform.deleteSlice(slice.sliceId));
        } else if (s.status === 'failed') this.setState(slice, 'UNHEALTHY', now);
      }
    }
  }

  private recordFailure(groupName: string, error: string, now: number): void {
    const g = this.groups.get(groupName)!;
    const t = this.options.timings;
    g.lastError = error;
    g.consecutiveFailures += 1;
    g.failureTimesMs = [...g.failureTimesMs.filter((x) => now - x < t.churn_window_ms), now];
    g.churning = g.failureTimesMs.length >= t.churn_failures;
    const delay = g.churning ? t.backoff_max_ms : Math.min(t.backoff_max_ms, t.backoff_initial_ms * 2 ** (g.consecutiveFailures - 1));
    g.backoffUntilMs = Math.max(g.backoffUntilMs, now + delay);
    this.warn(`scale group "${groupName}": ${error}; no creates for ${delay} ms${g.churning ? ' (churning)' : ''}`);
  }

  private track<T>(p: Promise<T>): void {
    const tracked = p.catch(() => undefined).finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }

  private createSlice(group: GroupRecord, now: number): void {
    const platform = this.options.platformOf.get(group.config.name)!;
    const sliceId = `${group.config.name}-${now.toString(36)}-${(this.seq++).toString(36)}`;
    const slice: SliceRecord = { sliceId, group: group.config.name, vmCount: vmCountOf(group.config), state: 'REQUESTING', createdAtMs: now, stateSinceMs: now, idleSinceMs: null, workersRegistered: 0, error: '' };
    this.slices.set(sliceId, slice);
    group.createAttempts += 1;
    this.track(
      platform.createSlice({ sliceId, group: group.config, controllerAddress: this.options.controllerAddress, authToken: this.options.authToken }).then(
        () => {
          if (slice.state === 'REQUESTING') this.setState(slice, 'BOOTING', this.options.state.now());
        },
        (e: unknown) => {
          const at = this.options.state.now();
          slice.error = e instanceof Error ? e.message : String(e);
          this.setState(slice, 'FAILED', at);
          this.recordFailure(group.config.name, `create of ${sliceId} failed: ${slice.error}`, at);
        },
      ),
    );
  }

  private deleteSlice(slice: SliceRecord, now: number): void {
    if (slice.state === 'STOPPING' || slice.state === 'TERMINATED') return;
    this.setState(slice, 'STOPPING', now);
    const platform = this.options.platformOf.get(slice.group)!;
    this.track(
      platform.deleteSlice(slice.sliceId).then(
        () => this.setState(slice, 'TERMINATED', this.options.state.now()),
        (e: unknown) => {
          slice.error = `delete failed: ${e instanceof Error ? e.message : String(e)}`;
          this.warn(`slice ${slice.sliceId}: ${slice.error}`);
          this.setState(slice, 'UNHEALTHY', this.options.state.now());
        },
      ),
    );
  }

  /** The current state, for `GetAutoscalerStatus`. */
  status(): AutoscalerStatus {
    return {
      evaluatedAtMs: this.evaluatedAtMs,
      groups: [...this.groups.values()].map((g) => ({
        name: g.config.name,
        platform: this.options.platformNameOf.get(g.config.name) ?? '',
        priority: g.config.priority,
        minSlices: g.config.min_slices,
        maxSlices: g.config.max_slices,
        bufferSlices: g.config.buffer_slices,
        backoffUntilMs: g.backoffUntilMs,
        consecutiveFailures: g.consecutiveFailures,
        churning: g.churning,
        lastError: g.lastError,
        createAttempts: g.createAttempts,
        routedDemand: g.routedDemand,
        heldBack: g.heldBack,
      })),
      slices: [...this.slices.values()].map((s) => ({
        sliceId: s.sliceId,
        group: s.group,
        state: s.state,
        createdAtMs: s.createdAtMs,
        stateSinceMs: s.stateSinceMs,
        workersRegistered: s.workersRegistered,
        vmCount: s.vmCount,
        error: s.error,
      })),
      unmet: this.unmet,
    };
  }

  /**
   * Stops evaluating and waits for platform calls in flight.
   * @param options.deleteSlices also delete every live slice (the cluster is stopping). @default false
   */
  async close(options: { deleteSlices?: boolean } = {}): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(this.inflight);
    if (options.deleteSlices) {
      const now = this.options.state.now();
      for (const s of this.slices.values()) if (LIVE_SLICE_STATES.has(s.state)) this.deleteSlice(s, now);
      await Promise.all(this.inflight);
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** @throws {IrisError} IRIS_INVALID_ARGUMENT when a group names no platform (config validation prevents it). */
export function requirePlatform(platforms: ReadonlyMap<string, Platform>, name: string): Platform {
  const p = platforms.get(name);
  if (!p) throw new IrisError('IRIS_INVALID_ARGUMENT', `no platform "${name}"`);
  return p;
}
