import type { TickCapacity } from './capacity.js';
import type { CandidateGroup } from './gang-groups.js';
import type { GangShape } from './gang-placement.js';
import type { JobCandidates } from './job-candidates.js';
import { bandRank, mayPreempt, resourceValue } from './priority-band.js';
import type { PriorityBand } from './priority-band.js';
import type { Preemption, ResourceAmounts, RunningTask, SchedulerJob, SchedulerTask, SchedulerWorker } from './types.js';

/** A job left with unplaced tasks after placement, in queue order. */
export interface PreemptorQueue {
  readonly job: SchedulerJob;
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
}

/**
 * Free resources per worker as preemption sees them: what placement left, plus what attempts being
 * stopped will give back. A preemptor that fits here needs no victim: it only waits for capacity
 * that is already free or on its way back.
 */
class VirtualCapacity {
  readonly cpu: Float64Array;
  readonly memory: Float64Array;
  readonly gpu: Float64Array;
  readonly tpu: Float64Array;

  constructor(capacity: TickCapacity) {
    this.cpu = Float64Array.from(capacity.cpu);
    this.memory = Float64Array.from(capacity.memory);
    this.gpu = Float64Array.from(capacity.gpu);
    this.tpu = Float64Array.from(capacity.tpu);
  }

  fits(i: number, need: ResourceAmounts, extra?: ResourceAmounts): boolean {
    return (
      (need.cpuMillicores <= 0 || need.cpuMillicores <= (this.cpu[i] as number) + (extra?.cpuMillicores ?? 0)) &&
      (need.memoryBytes <= 0 || need.memoryBytes <= (this.memory[i] as number) + (extra?.memoryBytes ?? 0)) &&
      (need.gpuCount <= 0 || need.gpuCount <= (this.gpu[i] as number) + (extra?.gpuCount ?? 0)) &&
      (need.tpuChips <= 0 || need.tpuChips <= (this.tpu[i] as number) + (extra?.tpuChips ?? 0))
    );
  }

  add(i: number, r: ResourceAmounts, sign: 1 | -1): void {
    this.cpu[i] = (this.cpu[i] as number) + sign * r.cpuMillicores;
    this.memory[i] = (this.memory[i] as number) + sign * r.memoryBytes;
    this.gpu[i] = (this.gpu[i] as number) + sign * r.gpuCount;
    this.tpu[i] = (this.tpu[i] as number) + sign * r.tpuChips;
  }
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
    const v: Victim = { task, worker, value: resourceValue(task.resources) };
    victims.push(v);
    let list = byWorker.get(worker);
    if (list === undefined) byWorker.set(worker, (list = []));
    list.push(v);
  }
  if (victims.length === 0) return [];
  // Worst band first, then cheapest; ties by task id so the pass is deterministic.
  victims.sort((a, b) => bandRank(b.task.band) - bandRank(a.task.band) || a.value - b.value || (a.task.taskId < b.task.taskId ? -1 : 1));

  const taken = new Set<string>();
  const out: Preemption[] = [];
  const take = (v: Victim, preemptorJobId: string): void => {
    taken.add(v.task.taskId);
    virt.add(v.worker, v.task.resources, 1);
    out.push({ victimTaskId: v.task.taskId, victimJobId: v.task.jobId, preemptorJobId });
  };

  // Per (candidates, shape, band, device): a cursor into `victims` (a victim skipped once for that
  // key stays unusable for it) and whether free room is known to be gone.
  const cursors = new Map<string, number>();
  const noRoom = new Set<string>();
  // Workers whose virtual room grew after a victim was taken; the only places new room can appear.
  const boosted: number[] = [];

  for (const q of preemptors) {
    const band: PriorityBand = q.job.band ?? 'INTERACTIVE';
    if (band === 'BATCH' || q.job.blockedReason !== undefined || q.pending.length === 0) continue;
    if (q.gang !== undefined) {
      preemptSlices(q, band);
      continue;
    }
    const need = q.job.resources;
    const device = q.job.deviceKey ?? '';
    const key = `${q.candidates.signature}|${need.cpuMillicores}|${need.memoryBytes}|${need.gpuCount}|${need.tpuChips}|${band}|${device}`;
    const mask = q.candidates.mask;
    for (let t = 0; t < q.pending.length; t++) {
      const room = findRoom(q.candidates, need, key);
      if (room >= 0) {
        virt.add(room, need, -1);
        continue;
      }
      let p = cursors.get(key) ?? 0;
      let chosen: Victim | undefined;
      for (; p < victims.length; p++) {
        const v = victims[p] as Victim;
        if (taken.has(v.task.taskId) || v.task.coscheduled || v.task.deviceKey !== device || !mayPreempt(band, v.task.band)) continue;
        if (mask[v.worker] !== 1 || !virt.fits(v.worker, need, v.task.resources)) continue;
        chosen = v;
        p += 1;
        break;
      }
      cursors.set(key, p);
      if (chosen === undefined) break;
      take(chosen, q.job.jobId);
      virt.add(chosen.worker, need, -1);
      boosted.push(chosen.worker);
    }
  }
  return out;

  function findRoom(candidates: JobCandidates, need: ResourceAmounts, key: string): number {
    if (!noRoom.has(key)) {
      for (const i of candidates.order) if (virt.fits(i, need)) return i;
      noRoom.add(key);
      return -1;
    }
    for (const i of boosted) if (candidates.mask[i] === 1 && virt.fits(i, need)) return i;
    return -1;
  }

  function preemptSlices(q: PreemptorQueue, band: PriorityBand): void {
    const { groups, shape } = q.gang!;
    const need = q.job.resources;
    const device = q.job.deviceKey ?? '';
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
        const fitting = group.members.filter((i) => virt.fits(i, need, sum(slice.filter((v) => v.worker === i).map((v) => v.task.resources))));
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
      for (const v of o.victims) take(v, q.job.jobId);
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
