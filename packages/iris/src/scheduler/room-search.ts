import type { TickCapacity } from './capacity.js';
import type { ResourceAmounts } from './types.js';

/**
 * Free resources per worker as preemption sees them: what placement left, plus what attempts being
 * stopped will give back. A preemptor that fits here needs no victim: it only waits for capacity
 * that is already free or on its way back.
 */
export class VirtualCapacity {
  readonly cpu: Float64Array;
  readonly memory: Float64Array;
  readonly gpu: Float64Array;
  readonly tpu: Float64Array;

  constructor(capacity: Pick<TickCapacity, 'cpu' | 'memory' | 'gpu' | 'tpu'>) {
    this.cpu = Float64Array.from(capacity.cpu);
    this.memory = Float64Array.from(capacity.memory);
    this.gpu = Float64Array.from(capacity.gpu);
    this.tpu = Float64Array.from(capacity.tpu);
  }

  /** True when worker `i` has room for `need` (zero needs are not checked). */
  fits(i: number, need: ResourceAmounts): boolean {
    return (
      (need.cpuMillicores <= 0 || need.cpuMillicores <= (this.cpu[i] as number)) &&
      (need.memoryBytes <= 0 || need.memoryBytes <= (this.memory[i] as number)) &&
      (need.gpuCount <= 0 || need.gpuCount <= (this.gpu[i] as number)) &&
      (need.tpuChips <= 0 || need.tpuChips <= (this.tpu[i] as number))
    );
  }

  /** As {@link fits}, once `extra` (a victim's resources) is given back on worker `i`. */
  fitsWith(i: number, need: ResourceAmounts, extra: ResourceAmounts): boolean {
    return (
      (need.cpuMillicores <= 0 || need.cpuMillicores <= (this.cpu[i] as number) + extra.cpuMillicores) &&
      (need.memoryBytes <= 0 || need.memoryBytes <= (this.memory[i] as number) + extra.memoryBytes) &&
      (need.gpuCount <= 0 || need.gpuCount <= (this.gpu[i] as number) + extra.gpuCount) &&
      (need.tpuChips <= 0 || need.tpuChips <= (this.tpu[i] as number) + extra.tpuChips)
    );
  }

  /** Adds (`sign` 1) or removes (-1) `r` on worker `i`. */
  add(i: number, r: ResourceAmounts, sign: 1 | -1): void {
    this.cpu[i] = (this.cpu[i] as number) + sign * r.cpuMillicores;
    this.memory[i] = (this.memory[i] as number) + sign * r.memoryBytes;
    this.gpu[i] = (this.gpu[i] as number) + sign * r.gpuCount;
    this.tpu[i] = (this.tpu[i] as number) + sign * r.tpuChips;
  }
}

/** The part of a candidate set a room search reads. */
export interface RoomCandidates {
  /** Candidate worker indexes in preference order. */
  readonly order: Int32Array;
  /** One byte per worker: 1 for candidates. */
  readonly mask: Uint8Array;
}

/**
 * Where the room search of one key (a candidate set and a task shape) stands. Every worker before
 * `at` had no room when last looked at and has gained none since.
 */
export interface RoomCursor {
  /** Set once no candidate had room: from then on only boosted workers are looked at. */
  noRoom: boolean;
  /** A position in the candidates' order while `noRoom` is unset, in the boosted list after. */
  at: number;
  /** How much of the growth log the cursor has taken into account. */
  seen: number;
}

/**
 * Finds free room for preemptors, as preemption defines it: while a key may still find free room,
 * the first candidate (in preference order) with room; once a scan of every candidate found none,
 * only the workers that gained room from a solo preemptor's victim ("boosted", in the order they
 * first did) are looked at, the first with room winning.
 *
 * Room on a worker shrinks when a preemptor reserves it and grows only when a victim there is
 * taken ({@link grew}). So a worker found without room stays without it until it grows, and each
 * key's cursor only moves forward, stepping back just for the workers that grew since it last
 * looked. A large unplaced queue then costs about one scan per key instead of one per task.
 */
export class RoomSearch {
  readonly #virt: VirtualCapacity;
  /** Every worker whose room grew, in order. */
  readonly #grown: number[] = [];
  readonly #boosted: number[] = [];
  /** Position of each worker in `#boosted`, -1 when not boosted. */
  readonly #boostedAt: Int32Array;
  /** Position of each worker in a candidate set's order (-1 when not a candidate), made on demand. */
  readonly #positions = new Map<RoomCandidates, Int32Array>();

  constructor(virt: VirtualCapacity, workerCount: number) {
    this.#virt = virt;
    this.#boostedAt = new Int32Array(workerCount).fill(-1);
  }

  /** A cursor for a key looked up for the first time. */
  cursor(): RoomCursor {
    return { noRoom: false, at: 0, seen: this.#grown.length };
  }

  /** Records that worker `i`'s room grew (a victim there was taken). */
  grew(i: number): void {
    this.#grown.push(i);
  }

  /** Adds worker `i` to the boosted workers (a solo preemptor took a victim there); once each. */
  boost(i: number): void {
    if ((this.#boostedAt[i] as number) >= 0) return;
    this.#boostedAt[i] = this.#boosted.length;
    this.#boosted.push(i);
  }

  /** A worker with room for `need` now, as the class describes, or -1. Moves `cursor`. */
  find(candidates: RoomCandidates, need: ResourceAmounts, cursor: RoomCursor): number {
    const virt = this.#virt;
    const mask = candidates.mask;
    const grown = this.#grown;
    if (cursor.seen < grown.length) {
      const at = cursor.noRoom ? this.#boostedAt : this.#positionsOf(candidates);
      for (let g = cursor.seen; g < grown.length; g++) {
        const w = grown[g] as number;
        const p = at[w] as number;
        if (p >= 0 && p < cursor.at && mask[w] === 1) cursor.at = p;
      }
      cursor.seen = grown.length;
    }
    const boosted = this.#boosted;
    if (!cursor.noRoom) {
      const order = candidates.order;
      for (let p = cursor.at; p < order.length; p++) {
        const i = order[p] as number;
        if (virt.fits(i, need)) {
          cursor.at = p;
          return i;
        }
      }
      cursor.noRoom = true;
      cursor.at = boosted.length;
      return -1;
    }
    for (let p = cursor.at; p < boosted.length; p++) {
      const i = boosted[p] as number;
      if (mask[i] === 1 && virt.fits(i, need)) {
        cursor.at = p;
        return i;
      }
    }
    cursor.at = boosted.length;
    return -1;
  }

  #positionsOf(candidates: RoomCandidates): Int32Array {
    let at = this.#positions.get(candidates);
    if (at === undefined) {
      at = new Int32Array(this.#boostedAt.length).fill(-1);
      for (let p = 0; p < candidates.order.length; p++) at[candidates.order[p] as number] = p;
      this.#positions.set(candidates, at);
    }
    return at;
  }
}
