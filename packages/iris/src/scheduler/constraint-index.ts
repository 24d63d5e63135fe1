import { compareNumeric, equalityKey } from '../core/constraint-match.js';
import type { AttributeValue, Constraint, SchedulerWorker } from './types.js';

/** A set of workers as one byte per worker (1 = member), indexed like the worker list. */
export type WorkerMask = Uint8Array;

/**
 * An index over the attributes of one tick's workers, built once per tick.
 *
 * `EQ`, `IN`, `EXISTS` and `NOT_EXISTS` read posting lists (key → value → workers); `NE` and the
 * numeric operators scan only the workers holding the key. Every mask is memoised by constraint,
 * so the many jobs that share constraints pay for each one once. Masks only ever contain healthy
 * workers. Returned masks are shared: callers copy before mutating.
 */
export class ConstraintIndex {
  /** Number of workers (healthy or not) the masks are indexed by. */
  readonly size: number;
  /** Healthy workers. */
  readonly healthy: WorkerMask;
  /** How many workers are healthy. */
  readonly healthyCount: number;
  readonly #holders = new Map<string, number[]>();
  readonly #postings = new Map<string, Map<string, number[]>>();
  readonly #workers: readonly SchedulerWorker[];
  readonly #memo = new Map<string, WorkerMask>();

  constructor(workers: readonly SchedulerWorker[]) {
    this.#workers = workers;
    this.size = workers.length;
    this.healthy = new Uint8Array(this.size);
    let healthyCount = 0;
    workers.forEach((worker, i) => {
      if (!worker.healthy) return;
      this.healthy[i] = 1;
      healthyCount += 1;
      const attributes = worker.attributes;
      for (const key of Object.keys(attributes)) {
        const value = attributes[key] as AttributeValue;
        let holders = this.#holders.get(key);
        if (holders === undefined) this.#holders.set(key, (holders = []));
        holders.push(i);
        let byValue = this.#postings.get(key);
        if (byValue === undefined) this.#postings.set(key, (byValue = new Map()));
        const k = equalityKey(value);
        let posting = byValue.get(k);
        if (posting === undefined) byValue.set(k, (posting = []));
        posting.push(i);
      }
    });
    this.healthyCount = healthyCount;
  }

  /** Attribute keys present on at least one healthy worker. */
  keys(): IterableIterator<string> {
    return this.#holders.keys();
  }

  /** Healthy workers for which `constraint` holds (memoised; do not mutate the result). */
  match(constraint: Constraint): WorkerMask {
    const memoKey = JSON.stringify([constraint.key, constraint.op, constraint.value ?? null, constraint.values ?? null]);
    const cached = this.#memo.get(memoKey);
    if (cached !== undefined) return cached;
    const mask = this.#compute(constraint);
    this.#memo.set(memoKey, mask);
    return mask;
  }

  /**
   * Applies `constraints` in order to the healthy set.
   *
   * @returns the resulting mask (a fresh copy) and, when some constraint empties the set, that
   *   constraint with the number of workers left just before it
   */
  filter(constraints: readonly Constraint[]): { mask: WorkerMask; emptiedBy?: { constraint: Constraint; before: number } } {
    const mask = this.healthy.slice();
    let remaining = this.healthyCount;
    for (const constraint of constraints) {
      const m = this.match(constraint);
      let next = 0;
      for (let i = 0; i < this.size; i++) {
        if (mask[i] === 1 && m[i] !== 1) mask[i] = 0;
        next += mask[i] as number;
      }
      if (next === 0 && remaining > 0) return { mask, emptiedBy: { constraint, before: remaining } };
      remaining = next;
    }
    return { mask };
  }

  #compute(constraint: Constraint): WorkerMask {
    const mask = new Uint8Array(this.size);
    const holders = this.#holders.get(constraint.key) ?? [];
    const postings = this.#postings.get(constraint.key);
    const mark = (list: readonly number[] | undefined): void => {
      for (const i of list ?? []) mask[i] = 1;
    };
    switch (constraint.op) {
      case 'EXISTS':
        mark(holders);
        break;
      case 'NOT_EXISTS':
        mask.set(this.healthy);
        for (const i of holders) mask[i] = 0;
        break;
      case 'EQ':
        if (constraint.value !== undefined) mark(postings?.get(equalityKey(constraint.value)));
        break;
      case 'IN':
        for (const v of constraint.values ?? []) mark(postings?.get(equalityKey(v)));
        break;
      case 'NE': {
        if (constraint.value === undefined) break;
        const excluded = equalityKey(constraint.value);
        for (const i of holders) {
          const actual = this.#workers[i]?.attributes[constraint.key];
          if (actual !== undefined && equalityKey(actual) !== excluded) mask[i] = 1;
        }
        break;
      }
      case 'GT':
      case 'GE':
      case 'LT':
      case 'LE':
        for (const i of holders) {
          const actual = this.#workers[i]?.attributes[constraint.key];
          if (actual !== undefined && compareNumeric(constraint.op, actual, constraint.value)) mask[i] = 1;
        }
        break;
    }
    return mask;
  }
}
