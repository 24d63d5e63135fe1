import type { TickCapacity } from './capacity.js';
import type { CandidateGroup } from './gang-groups.js';
import type { GangShape } from './gang-placement.js';
import type { JobCandidates } from './job-candidates.js';
import { RoomSearch, VirtualCapacity } from './room-search.js';
import type { RoomCursor } from './room-search.js';
import { ShapeMemo } from './shape-memo.js';
import { bandRank, mayPreempt, resourceValue } from './priority-band.js';
import type { PriorityBand } from './priority-band.js';
import type { Preemption, ResourceAmounts, RunningTask, SchedulerTask, SchedulerWorker } from './types.js';

/**
 * A job left with unplaced tasks after placement, in queue order, with the fields of the job the
 * pass reads (copied once by the tick rather than read from the job at each use).
 */
export interface PreemptorQueue {
  readonly jobId: string;
  /** The job's band; BATCH never preempts. */
  readonly band: PriorityBand;
  /** What one task needs. */
  readonly resources: ResourceAmounts;
  /** Device class (`SchedulerJob.deviceKey`, `''` when unset). */
  readonly deviceKey: string;
  /** Its unplaced, placeable tasks by index. */
  readonly pending: readonly SchedulerTask[];
  readonly candidates: JobCandidates;
  /** For coscheduled jobs: the candidate groups and how the pending tasks split into slices. */
  readonly gang?: { readonly groups: readonly CandidateGroup[]; readonly shape: GangShape };
}

interface Victim {
  readonly task: RunningTask;
  readonly worker: number;
  readonly value: number;
  /** `bandRank` of the task's band. */
  readonly rank: number;
}

/** Where the pass stands for one (candidates, shape, band, device) key. */
interface KeySearch {
  /** Next victim to look at: a victim skipped once for the key stays unusable for it. */
  victim: number;
  readonly room: RoomCursor;
}

type KeySearches = Map<PriorityBand, Map<string, KeySearch>>;

function newKeySearches(): KeySearches {
  return new Map();
}

function sum(rs: readonly ResourceAmounts[]): ResourceAmounts {
  const out = { cpuMillicores: 0, memoryBytes: 0, gpuCount: 0, tpuChips: 0 };
  for (const r of rs) {
    out.cpuMillicores += r.cpuMillicores;
    out.memoryBytes += r.memoryBytes;
    out.gpuCount += r.gpuCount;
    out.tpuChips += r.tpuChips;
  }
  return out;
}

/**
 * The preemption pass that follows placement. For each job with unplaced tasks, in queue order:
 *
 * - BATCH never preempts, and no band preempts its own or a better one ({@link mayPreempt}).
 * - Never with free capacity: a task that fits somewhere now, or once attempts already being
 *   stopped are gone, takes that room instead of a victim.
 * - A solo task evicts one non-coscheduled victim of its device class on a candidate worker where
 *   freeing the victim makes it fit; victims are tried worst band first, then cheapest
 *   ({@link resourceValue}). A solo task never breaks a slice.
 * - A gang evicts, for each slice it lacks, one whole slice of a worse-band coscheduled job of its
 *   device class occupying at least `k` members of one of its candidate groups — or nothing, when
 *   the slices it could free fall short.
 * - Each victim is taken at most once per pass.
 *
 * Pure: reads the tick's capacity after placement and never changes it.
 */
export function planPreemptions(
  preemptors: readonly PreemptorQueue[],
  running: readonly RunningTask[],
  workers: readonly SchedulerWorker[],
  capacity: TickCapacity,
): Preemption[] {
  if (running.length === 0 || preemptors.length === 0) return [];
  const indexOf = new Map<string, number>();
  workers.forEach((w, i) => indexOf.set(w.workerId, i));
  const virt = new VirtualCapacity(capacity);
  const victims: Victim[] = [];
  const byWorker = new Map<number, Victim[]>();
  for (const task of running) {
    const worker = indexOf.get(task.workerId);
    if (worker === undefined) continue;
    if (task.stopping === true) {
      virt.add(worker, task.resources, 1);
      continue;
    }
    if (task.band === 'PRODUCTION') continue;
    const v: Victim = { task, worker, value: resourceValue(task.resources), rank: bandRank(task.band) };
    victims.push(v);
    let list = byWorker.get(worker);
    if (list === undefined) byWorker.set(worker, (list = []));
    list.push(v);
  }
  if (victims.length === 0) return [];
  // Worst band first, then cheapest; ties by task id so the pass is deterministic.
  victims.sort((a, b) => b.rank - a.rank || a.value - b.value || (a.task.taskId < b.task.taskId ? -1 : 1));

  const taken = new Set<string>();
  const out: Preemption[] = [];
  const rooms = new RoomSearch(virt, workers.length);
  const take = (v: Victim, preemptorJobId: string): void => {
    taken.add(v.task.taskId);
    virt.add(v.worker, v.task.resources, 1);
    rooms.grew(v.worker);
    out.push({ victimTaskId: v.task.taskId, victimJobId: v.task.jobId, preemptorJobId });
  };

  // Per (candidates, shape, band, device): where the victim and room searches stand.
  const searches = new ShapeMemo(newKeySearches);
  const searchOf = (candidates: JobCandidates, need: ResourceAmounts, band: PriorityBand, device: string): KeySearch => {
    const byBand = searches.get(candidates, need);
    let byDevice = byBand.get(band);
    if (byDevice === undefined) byBand.set(band, (byDevice = new Map()));
    let search = byDevice.get(device);
    if (search === undefined) byDevice.set(device, (search = { victim: 0, room: rooms.cursor() }));
    return search;
  };
  for (const q of preemptors) {
    const band = q.band;
    if (band === 'BATCH' || q.pending.length === 0) continue;
    if (q.gang !== undefined) {
      preemptSlices(q, band);
      continue;
    }
    const need = q.resources;
    const device = q.deviceKey;
    const search = searchOf(q.candidates, need, band, device);
    const mask = q.candidates.mask;
    for (let t = 0; t < q.pending.length; t++) {
      const room = rooms.find(q.candidates, need, search.room);
      if (room >= 0) {
        virt.add(room, need, -1);
        continue;
      }
      let p = search.victim;
      let chosen: Victim | undefined;
      for (; p < victims.length; p++) {
        const v = victims[p] as Victim;
        if (taken.has(v.task.taskId) || v.task.coscheduled || v.task.deviceKey !== device || !mayPreempt(band, v.task.band)) continue;
        if (mask[v.worker] !== 1 || !virt.fitsWith(v.worker, need, v.task.resources)) continue;
        chosen = v;
        p += 1;
        break;
      }
      search.victim = p;
      if (chosen === undefined) break;
      take(chosen, q.jobId);
      virt.add(chosen.worker, need, -1);
      rooms.boost(chosen.worker);
    }
  }
  return out;

  function preemptSlices(q: PreemptorQueue, band: PriorityBand): void {
    const { groups, shape } = q.gang!;
    const need = q.resources;
    const device = q.deviceKey;
    const slicesNeeded = shape.slices.size;
    if (slicesNeeded === 0 || shape.k === 0) return;
    const free: CandidateGroup[] = [];
    const options: Array<{ group: CandidateGroup; victims: Victim[]; band: PriorityBand; value: number }> = [];
    for (const group of groups) {
      if (group.members.length < shape.k) continue;
      if (group.members.filter((i) => virt.fits(i, need)).length >= shape.k) {
        free.push(group);
        continue;
      }
      // Victim jobs with live, untaken coscheduled tasks on this group's members.
      const byJob = new Map<string, Victim[]>();
      for (const i of group.members) {
        for (const v of byWorker.get(i) ?? []) {
          if (taken.has(v.task.taskId) || !v.task.coscheduled) continue;
          let list = byJob.get(v.task.jobId);
          if (list === undefined) byJob.set(v.task.jobId, (list = []));
          list.push(v);
        }
      }
      for (const slice of byJob.values()) {
        const first = slice[0] as Victim;
        if (slice.length < shape.k || first.task.deviceKey !== device || !mayPreempt(band, first.task.band)) continue;
        const fitting = group.members.filter((i) => virt.fitsWith(i, need, sum(slice.filter((v) => v.worker === i).map((v) => v.task.resources))));
        if (fitting.length < shape.k) continue;
        options.push({ group, victims: slice, band: first.task.band, value: slice.reduce((n, v) => n + v.value, 0) });
      }
    }
    if (free.length >= slicesNeeded) {
      for (const group of free.slice(0, slicesNeeded)) reserveGroup(group, need, shape.k);
      return;
    }
    options.sort((a, b) => bandRank(b.band) - bandRank(a.band) || a.value - b.value || (a.group.value < b.group.value ? -1 : 1));
    const picked: typeof options = [];
    const usedGroups = new Set<string>();
    for (const o of options) {
      if (free.length + picked.length >= slicesNeeded) break;
      if (usedGroups.has(o.group.value)) continue;
      usedGroups.add(o.group.value);
      picked.push(o);
    }
    if (free.length + picked.length < slicesNeeded) return;
    for (const group of free) reserveGroup(group, need, shape.k);
    for (const o of picked) {
      for (const v of o.victims) take(v, q.jobId);
      reserveGroup(o.group, need, shape.k);
    }
  }

  function reserveGroup(group: CandidateGroup, need: ResourceAmounts, k: number): void {
    let left = k;
    for (const i of group.members) {
      if (left === 0) break;
      if (!virt.fits(i, need)) continue;
      virt.add(i, need, -1);
      left -= 1;
    }
  }
}
