import type { ConstraintIndex, WorkerMask } from './constraint-index.js';
import { isRequired } from '../core/constraint-match.js';
import { TAINT_PREFIX, implicitTaintConstraints } from './taints.js';
import type { AttributeValue, Constraint } from './types.js';

/** Attribute a claimed worker carries: the id of the job whose reservation holds it. */
export const RESERVATION_ATTRIBUTE = 'reservation-job';

/**
 * The workers a job may use this tick, computed once per distinct constraint list (and reservation
 * scope). One object per distinct list and scope: callers key per-tick memos by its identity.
 */
export interface JobCandidates {
  /** REQUIRED constraints, followed by the implicit taint exclusions. */
  readonly required: readonly Constraint[];
  /** Healthy workers meeting every REQUIRED and implicit constraint. */
  readonly mask: WorkerMask;
  /** Candidate indexes ordered by PREFERRED score descending, then registration order. */
  readonly order: Int32Array;
  /** PREFERRED score of every worker (how many PREFERRED constraints hold). */
  readonly score: Int32Array;
  /**
   * Boundaries of equal-score runs in `order`: tier `t` spans `order[tiers[t] .. tiers[t + 1])`.
   * Holds `tierCount + 1` entries.
   */
  readonly tiers: Int32Array;
  /** Set when the candidate set is empty because of one constraint. */
  readonly emptiedBy?: { readonly constraint: Constraint; readonly before: number };
  /** Healthy workers carrying a taint this job does not mention. */
  readonly taintExcluded: WorkerMask;
}

/**
 * One node of the lookup trie: the path from the root spells a constraint list (key, op, operands
 * and mode of each constraint, the operand count of `IN`) and then the reservation scope.
 */
interface TrieNode {
  readonly next: Map<AttributeValue | null, TrieNode>;
  leaf: JobCandidates | undefined;
}

/** Trie step for a missing operand, a missing reservation scope, and each mode. */
const NONE = null;
const REQUIRED_STEP = 0;
const PREFERRED_STEP = 1;

function trieNode(): TrieNode {
  return { next: new Map(), leaf: undefined };
}

function step(node: TrieNode, value: AttributeValue | null): TrieNode {
  let next = node.next.get(value);
  if (next === undefined) node.next.set(value, (next = trieNode()));
  return next;
}

/**
 * Computes candidate sets per distinct constraint list and memoises them for the tick. Lists are
 * looked up field by field in a trie of maps rather than by a JSON key: every job brings its own
 * array, and serialising each one was a large part of a tick. Lists equal field by field (a
 * missing mode counting as REQUIRED) share one entry.
 */
export class CandidateCache {
  readonly #index: ConstraintIndex;
  readonly #taintKeys: readonly string[];
  readonly #root = trieNode();
  readonly #hasReservations: boolean;

  constructor(index: ConstraintIndex) {
    this.#index = index;
    this.#hasReservations = [...index.keys()].includes(RESERVATION_ATTRIBUTE);
    this.#taintKeys = [...index.keys()].filter((k) => k.startsWith(TAINT_PREFIX)).sort();
  }

  /**
   * Candidates for a job with these merged constraints. Workers claimed by a reservation other
   * than `reservationScope` are excluded; those claimed by it rank first.
   */
  get(constraints: readonly Constraint[], reservationScope?: string): JobCandidates {
    let node = this.#root;
    for (const c of constraints) {
      node = step(step(node, c.key), c.op);
      node = step(node, c.value ?? NONE);
      if (c.values !== undefined) {
        node = step(node, c.values.length);
        for (const v of c.values) node = step(node, v);
      } else {
        node = step(node, NONE);
      }
      node = step(node, c.mode === 'PREFERRED' ? PREFERRED_STEP : REQUIRED_STEP);
    }
    node = step(node, reservationScope ?? NONE);
    return (node.leaf ??= this.#compute(constraints, reservationScope));
  }

  #compute(constraints: readonly Constraint[], reservationScope: string | undefined): JobCandidates {
    const index = this.#index;
    const implicit = implicitTaintConstraints(constraints, this.#taintKeys);
    const required = [...constraints.filter(isRequired), ...implicit];
    const filtered = index.filter(required);
    let { mask, emptiedBy } = filtered;
    const score = new Int32Array(index.size);
    for (const c of constraints) {
      if (isRequired(c)) continue;
      const m = index.match(c);
      for (let i = 0; i < index.size; i++) score[i] = (score[i] as number) + (m[i] as number);
    }
    if (this.#hasReservations) {
      const claimed = index.match({ key: RESERVATION_ATTRIBUTE, op: 'EXISTS' });
      const own = reservationScope === undefined ? undefined : index.match({ key: RESERVATION_ATTRIBUTE, op: 'EQ', value: reservationScope });
      const before = mask.reduce((n, v) => n + v, 0);
      mask = Uint8Array.from(mask, (v, i) => (v === 1 && (claimed[i] !== 1 || own?.[i] === 1) ? 1 : 0));
      if (own !== undefined) for (let i = 0; i < index.size; i++) score[i] = (score[i] as number) + (own[i] as number);
      if (before > 0 && emptiedBy === undefined && !mask.includes(1)) {
        emptiedBy = { constraint: { key: RESERVATION_ATTRIBUTE, op: 'NOT_EXISTS', mode: 'REQUIRED' }, before };
      }
    }
    const members: number[] = [];
    for (let i = 0; i < index.size; i++) if (mask[i] === 1) members.push(i);
    members.sort((a, b) => (score[b] as number) - (score[a] as number) || a - b);
    const tiers: number[] = [0];
    for (let p = 1; p < members.length; p++) {
      if (score[members[p] as number] !== score[members[p - 1] as number]) tiers.push(p);
    }
    tiers.push(members.length);
    const taintExcluded = new Uint8Array(index.size);
    for (const c of implicit) {
      const m = index.match(c);
      for (let i = 0; i < index.size; i++) if (index.healthy[i] === 1 && m[i] !== 1) taintExcluded[i] = 1;
    }
    return {
      required,
      mask,
      order: Int32Array.from(members),
      score,
      tiers: Int32Array.from(tiers),
      ...(emptiedBy === undefined ? {} : { emptiedBy }),
      taintExcluded,
    };
  }
}
