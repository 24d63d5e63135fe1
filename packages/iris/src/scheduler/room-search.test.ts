import { describe, expect, it } from 'vitest';
import { RoomSearch, VirtualCapacity } from './room-search.js';
import type { RoomCandidates, RoomCursor } from './room-search.js';
import type { ResourceAmounts } from './types.js';

/** A small deterministic generator (mulberry32), so a failing round can be replayed. */
function generator(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

const amounts = (cpu: number, memory = 0): ResourceAmounts => ({ cpuMillicores: cpu, memoryBytes: memory, gpuCount: 0, tpuChips: 0 });

function virtualCapacity(cpu: number[], memory: number[]): VirtualCapacity {
  const zeros = new Float64Array(cpu.length);
  return new VirtualCapacity({ cpu: Float64Array.from(cpu), memory: Float64Array.from(memory), gpu: zeros, tpu: zeros });
}

/**
 * The search as preemption defines it, without cursors: a full scan of the candidates while the key
 * may find free room, then a scan of every boost in the order it happened, duplicates included.
 */
class RescanReference {
  readonly boosted: number[] = [];
  readonly noRoom = new Set<string>();
  constructor(private readonly virt: VirtualCapacity) {}

  find(key: string, candidates: RoomCandidates, need: ResourceAmounts): number {
    if (!this.noRoom.has(key)) {
      for (const i of candidates.order) if (this.virt.fits(i, need)) return i;
      this.noRoom.add(key);
      return -1;
    }
    for (const i of this.boosted) if (candidates.mask[i] === 1 && this.virt.fits(i, need)) return i;
    return -1;
  }
}

function candidateSet(rand: (n: number) => number, workers: number): RoomCandidates {
  const members = Array.from({ length: workers }, (_, i) => i).filter(() => rand(4) > 0);
  for (let i = members.length - 1; i > 0; i--) {
    const j = rand(i + 1);
    [members[i], members[j]] = [members[j] as number, members[i] as number];
  }
  const mask = new Uint8Array(workers);
  for (const i of members) mask[i] = 1;
  return { order: Int32Array.from(members), mask };
}

describe('RoomSearch', () => {
  it('finds the same worker as rescanning every candidate and every boost, over random reserve and grow sequences', () => {
    const rand = generator(424242);
    let found = 0;
    let foundAfterNoRoom = 0;
    for (let round = 0; round < 200; round++) {
      const n = 2 + rand(20);
      const cpu = Array.from({ length: n }, () => rand(5) * 1000);
      const memory = Array.from({ length: n }, () => rand(5));
      const fast = virtualCapacity(cpu, memory);
      const slow = virtualCapacity(cpu, memory);
      const search = new RoomSearch(fast, n);
      const reference = new RescanReference(slow);
      const sets = Array.from({ length: 1 + rand(3) }, () => candidateSet(rand, n));
      const needs = [amounts(1000, 1), amounts(2000, 0), amounts(3000, 2), amounts(0, 3)];
      const cursors = new Map<string, RoomCursor>();
      for (let step = 0; step < 150; step++) {
        if (rand(3) === 0) {
          // A victim taken on a worker gives room back; a solo preemptor's victim also boosts it.
          const w = rand(n);
          const back = amounts(rand(3) * 1000, rand(3));
          fast.add(w, back, 1);
          slow.add(w, back, 1);
          search.grew(w);
          if (rand(3) > 0) {
            search.boost(w);
            reference.boosted.push(w);
          }
          continue;
        }
        const s = rand(sets.length);
        const k = rand(needs.length);
        const key = `${s}/${k}`;
        const candidates = sets[s] as RoomCandidates;
        const need = needs[k] as ResourceAmounts;
        let cursor = cursors.get(key);
        if (cursor === undefined) cursors.set(key, (cursor = search.cursor()));
        const wasNoRoom = cursor.noRoom;
        const got = search.find(candidates, need, cursor);
        expect(got).toBe(reference.find(key, candidates, need));
        if (got >= 0) {
          // The preemptor reserves the room it found.
          fast.add(got, need, -1);
          slow.add(got, need, -1);
          found += 1;
          if (wasNoRoom) foundAfterNoRoom += 1;
        }
      }
    }
    // The rounds exercise both phases of the search, not just the empty answer.
    expect(found).toBeGreaterThan(1000);
    expect(foundAfterNoRoom).toBeGreaterThan(50);
  });

  it('steps back to an earlier candidate that gained room after the cursor passed it', () => {
    const virt = virtualCapacity([0, 2000, 0], [0, 0, 0]);
    const search = new RoomSearch(virt, 3);
    const candidates: RoomCandidates = { order: Int32Array.from([0, 1, 2]), mask: Uint8Array.from([1, 1, 1]) };
    const cursor = search.cursor();
    const need = amounts(1000);
    expect(search.find(candidates, need, cursor)).toBe(1);
    virt.add(1, need, -1);
    virt.add(0, amounts(1000), 1);
    search.grew(0);
    expect(search.find(candidates, need, cursor)).toBe(0);
    virt.add(0, need, -1);
    expect(search.find(candidates, need, cursor)).toBe(1);
    virt.add(1, need, -1);
    expect(search.find(candidates, need, cursor)).toBe(-1);
    expect(cursor.noRoom).toBe(true);
    // Once free room is gone only boosted workers count: room on worker 2 that grew without a boost is not looked at.
    virt.add(2, amounts(1000), 1);
    search.grew(2);
    expect(search.find(candidates, need, cursor)).toBe(-1);
    virt.add(1, amounts(1000), 1);
    search.grew(1);
    search.boost(1);
    expect(search.find(candidates, need, cursor)).toBe(1);
  });
});
