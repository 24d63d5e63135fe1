import type { ScaleGroupConfig } from './cluster-config.js';
import type { DemandEntry } from './demand.js';
import { constraintMatches } from '../core/constraint-match.js';
import { PRIORITY_BANDS } from '../scheduler/priority-band.js';
import type { Constraint, ResourceAmounts, WorkerAttributes } from '../scheduler/types.js';
import type { AutoscalerTimings } from './cluster-config.js';
import { LIVE_SLICE_STATES, STARTING_SLICE_STATES } from './slice-state.js';
import type { SliceState } from './slice-state.js';

/** A slice as the planner sees it. */
export interface SliceView {
  readonly sliceId: string;
  readonly group: string;
  readonly state: SliceState;
  /** When the create was requested. */
  readonly createdAtMs: number;
  /** Since when no worker of the slice holds a live attempt; `null` while busy or not READY. */
  readonly idleSinceMs: number | null;
}

/** A scale group's state carried between evaluations. */
export interface GroupView {
  readonly config: ScaleGroupConfig;
  /** No creates before this time (backoff after failed creates, or churn quarantine). @default 0 */
  readonly backoffUntilMs: number;
  /** First evaluation of the current unbroken run of unmet demand routed here; `null` when none. */
  readonly demandSinceMs: number | null;
}

/** Everything one evaluation reads. */
export interface ScalingInput {
  readonly nowMs: number;
  readonly timings: AutoscalerTimings;
  /** Groups in config order. */
  readonly groups: readonly GroupView[];
  readonly slices: readonly SliceView[];
  readonly demand: readonly DemandEntry[];
}

/** Demand that no group can hold now, with why. */
export interface UnmetDemand {
  readonly entry: DemandEntry;
  readonly reason: string;
}

/** Per-group outcome of routing. */
export interface GroupPlan {
  readonly group: string;
  /** Demand entries routed here. */
  readonly routedEntries: number;
  /** Slices the routed demand needs beyond READY capacity and slices already starting. */
  readonly neededSlices: number;
  /** Slices to create now. */
  readonly create: number;
  /** Why creates were held back (scale-up delay, backoff, global cap), when they were. */
  readonly heldBack?: string;
}

/** What one evaluation decides. */
export interface ScalingPlan {
  readonly groups: readonly GroupPlan[];
  /** Slices to delete, with the reason. */
  readonly deletes: readonly { readonly sliceId: string; readonly reason: string; readonly failure: boolean }[];
  readonly unmet: readonly UnmetDemand[];
}

/** The worker attributes every worker of a group advertises, as routing matches them. */
export function groupAttributes(group: ScaleGroupConfig): WorkerAttributes {
  const attrs: Record<string, string | number> = { 'scale-group': group.name, preemptible: 'false' };
  if (group.zone !== undefined) {
    attrs['zone'] = group.zone;
    attrs['region'] = group.zone.replace(/-[a-z]$/, '');
  }
  if (group.slice.kind === 'cpu') attrs['device-type'] = 'cpu';
  else {
    const t = group.slice.tpu;
    Object.assign(attrs, { 'device-type': 'tpu', 'device-variant': t.name, 'tpu-vm-count': t.vmCount, 'tpu-name': '', preemptible: String(group.slice.preemptible) });
  }
  return { ...attrs, ...group.attributes };
}

/** VMs (workers) in one slice of the group. */
export function vmsPerSlice(group: ScaleGroupConfig): number {
  return group.slice.kind === 'tpu' ? group.slice.tpu.vmCount : 1;
}

/** What one VM of the group offers. */
export function vmCapacity(group: ScaleGroupConfig): ResourceAmounts {
  const tpuChips = group.slice.kind === 'tpu' ? group.slice.tpu.chipsPerVm : 0;
  return { cpuMillicores: Math.round(group.resources.cpu * 1000), memoryBytes: group.resources.memory_bytes, gpuCount: 0, tpuChips };
}

function tasksPerVm(capacity: ResourceAmounts, need: ResourceAmounts): number {
  let n = Infinity;
  for (const k of ['cpuMillicores', 'memoryBytes', 'gpuCount', 'tpuChips'] as const) {
    if (need[k] <= 0) continue;
    n = Math.min(n, Math.floor(capacity[k] / need[k]));
  }
  return n === Infinity ? 64 : n;
}

interface Route {
  readonly group: string;
  /** Position of the group in priority order. */
  readonly at: number;
  /** Slice units one entry uses (1 for a gang; 1/slots for a single task). */
  readonly units: number;
}

/**
 * The autoscaler kernel. Pure: the same input gives the same plan.
 *
 * 1. Routing: each demand entry matches the groups whose worker template satisfies its REQUIRED
 *    constraints, whose VMs fit one task, and (gangs) whose slices have exactly `size` VMs grouped by
 *    the gang's attribute. Matches are cached per job.
 * 2. Waterfall: entries in band order go to the matching group with the lowest `priority` that still
 *    has room (starting slices, then new slices up to `max_slices`) and is not backing off; a full
 *    or backing-off group passes the entry on to the next one.
 * 3. Per group: creates = what routed demand needs beyond starting slices (only once that demand has
 *    lasted `scale_up_delay_ms`), plus what `min_slices` and `buffer_slices` ask for, capped by
 *    `max_slices`, backoff, and the global `max_concurrent_creates` (in priority order).
 * 4. Deletes: slices past `startup_grace_ms` without becoming READY (a failure), UNHEALTHY slices
 *    (a failure), and READY slices idle for `scale_down_idle_ms` while the group has no routed
 *    demand and stays at or above `min_slices` and `buffer_slices`.
 */
export function planScaling(input: ScalingInput): ScalingPlan {
  const { nowMs, timings } = input;
  const ordered = [...input.groups].sort((a, b) => a.config.priority - b.config.priority || a.config.name.localeCompare(b.config.name));
  const attrs = new Map(ordered.map((g) => [g.config.name, groupAttributes(g.config)]));
  const live = new Map<string, SliceView[]>();
  for (const s of input.slices) {
    if (!LIVE_SLICE_STATES.has(s.state)) continue;
    let list = live.get(s.group);
    if (!list) live.set(s.group, (list = []));
    list.push(s);
  }
  const count = (g: string, pred: (s: SliceView) => boolean) => (live.get(g) ?? []).filter(pred).length;
  const starting = new Map(ordered.map((g) => [g.config.name, count(g.config.name, (s) => STARTING_SLICE_STATES.has(s.state))]));
  const total = new Map(ordered.map((g) => [g.config.name, count(g.config.name, () => true)]));
  // By position in priority order: slice units taken by routed demand, entries routed.
  const used = ordered.map(() => 0);
  const routed = ordered.map(() => 0);
  const backingOff = (g: GroupView) => g.backoffUntilMs > nowMs;

  // Per-group facts routing reads, worked out once per evaluation rather than once per job.
  const templates = ordered.map((g) => ({ name: g.config.name, attrs: attrs.get(g.config.name)!, capacity: vmCapacity(g.config), vms: vmsPerSlice(g.config) }));
  // Routes depend only on constraints, resources and gang shape, so jobs that share them share one
  // lookup: keyed by the constraints array, then by a key of the rest.
  // `next` skips routes already found full: routed units only grow, so a group that had no room for
  // this shape keeps having none for the rest of the evaluation.
  const routeCache = new Map<readonly Constraint[], Map<string, { readonly routes: Route[]; next: number }>>();
  const routesOf = (e: DemandEntry): { readonly routes: Route[]; next: number } => {
    let byShape = routeCache.get(e.constraints);
    if (!byShape) routeCache.set(e.constraints, (byShape = new Map()));
    const r = e.resources;
    const key = `${r.cpuMillicores}|${r.memoryBytes}|${r.gpuCount}|${r.tpuChips}|${e.gang ? `${e.gang.size}|${e.gang.groupBy}` : ''}`;
    const cached = byShape.get(key);
    if (cached) return cached;
    const routes: Route[] = [];
    for (const [at, g] of templates.entries()) {
      const a = g.attrs;
      if (!e.constraints.every((c) => constraintMatches(c, a))) continue;
      const perVm = tasksPerVm(g.capacity, e.resources);
      if (perVm < 1) continue;
      const vms = g.vms;
      if (e.gang) {
        if (e.gang.groupBy === 'tpu-name' ? vms !== e.gang.size : !(e.gang.groupBy in a) || vms < e.gang.size) continue;
        routes.push({ group: g.name, at, units: 1 });
      } else routes.push({ group: g.name, at, units: 1 / (perVm * vms) });
    }
    const list = { routes, next: 0 };
    byShape.set(key, list);
    return list;
  };

  // Band order, stable within a band (a counting sort rather than a comparison sort).
  const entries: DemandEntry[] = [];
  for (const band of PRIORITY_BANDS) for (const e of input.demand) if (e.band === band) entries.push(e);
  const unmet: UnmetDemand[] = [];
  // Room per group (starting slices, plus new ones up to max_slices unless backing off) is fixed
  // for the evaluation; only `used` grows.
  const room = ordered.map((g) => starting.get(g.config.name)! + (backingOff(g) ? 0 : g.config.max_slices - total.get(g.config.name)!));
  const blockReason = (at: number): string => {
    const g = ordered[at]!;
    return backingOff(g) ? `scale group "${g.config.name}" is backing off after failed creates` : `scale group "${g.config.name}" is at max_slices ${g.config.max_slices}`;
  };
  for (const e of entries) {
    if (e.invalidReason) {
      unmet.push({ entry: e, reason: e.invalidReason });
      continue;
    }
    const list = routesOf(e);
    const routes = list.routes;
    if (routes.length === 0) {
      unmet.push({ entry: e, reason: `no scale group can hold ${e.gang ? `a gang of ${e.gang.size} grouped by "${e.gang.groupBy}"` : 'this task'} with its constraints and resources` });
      continue;
    }
    while (list.next < routes.length) {
      const r = routes[list.next]!;
      const after = used[r.at]! + r.units;
      if (after <= room[r.at]! + 1e-9) {
        used[r.at] = after;
        routed[r.at] = routed[r.at]! + 1;
        break;
      }
      list.next += 1;
    }
    if (list.next === routes.length) unmet.push({ entry: e, reason: blockReason(routes[routes.length - 1]!.at) });
  }

  const plans: GroupPlan[] = [];
  const deletes: { sliceId: string; reason: string; failure: boolean }[] = [];
  let createBudget = timings.max_concurrent_creates - input.slices.filter((s) => s.state === 'REQUESTING').length;
  for (const [at, g] of ordered.entries()) {
    const name = g.config.name;
    const slices = live.get(name) ?? [];
    for (const s of slices) {
      if (STARTING_SLICE_STATES.has(s.state) && nowMs - s.createdAtMs > timings.startup_grace_ms) deletes.push({ sliceId: s.sliceId, reason: 'not ready within startup_grace_ms', failure: true });
      else if (s.state === 'UNHEALTHY') deletes.push({ sliceId: s.sliceId, reason: 'a worker of the slice is gone', failure: true });
    }
    const doomed = new Set(deletes.map((d) => d.sliceId));
    const kept = slices.filter((s) => !doomed.has(s.sliceId));
    const startingNow = kept.filter((s) => STARTING_SLICE_STATES.has(s.state)).length;
    const idle = kept.filter((s) => s.state === 'READY' && s.idleSinceMs !== null);
    const busy = kept.length - startingNow - idle.length;
    const needed = Math.max(0, Math.ceil(used[at]! - 1e-9) - startingNow);
    const delayed = needed > 0 && timings.scale_up_delay_ms > 0 && (g.demandSinceMs === null || nowMs - g.demandSinceMs < timings.scale_up_delay_ms);
    const demandTarget = busy + startingNow + (delayed ? 0 : needed);
    const target = Math.min(g.config.max_slices, Math.max(g.config.min_slices, demandTarget + g.config.buffer_slices));
    let want = Math.max(0, target - kept.length);
    let heldBack: string | undefined;
    if (delayed) heldBack = 'waiting for scale_up_delay_ms';
    if (want > 0 && backingOff(g)) {
      heldBack = 'backing off after failed creates';
      want = 0;
    }
    if (want > createBudget) {
      heldBack = 'max_concurrent_creates reached';
      want = Math.max(0, createBudget);
    }
    createBudget -= want;
    plans.push({ group: name, routedEntries: routed[at]!, neededSlices: needed, create: want, ...(heldBack ? { heldBack } : {}) });

    if (routed[at]! === 0) {
      const floor = Math.max(g.config.min_slices - busy - startingNow, g.config.buffer_slices, 0);
      const expired = idle.filter((s) => nowMs - s.idleSinceMs! >= timings.scale_down_idle_ms).sort((a, b) => a.idleSinceMs! - b.idleSinceMs!);
      const removable = Math.max(0, idle.length - floor);
      for (const s of expired.slice(0, removable)) deletes.push({ sliceId: s.sliceId, reason: `idle for scale_down_idle_ms`, failure: false });
    }
  }
  return { groups: plans, deletes, unmet };
}
