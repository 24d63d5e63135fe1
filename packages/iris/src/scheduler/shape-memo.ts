import type { JobCandidates } from './job-candidates.js';
import type { ResourceAmounts } from './types.js';

type ByTpu<T> = Map<number, T>;
type ByGpu<T> = Map<number, ByTpu<T>>;
type ByMemory<T> = Map<number, ByGpu<T>>;
type ByCpu<T> = Map<number, ByMemory<T>>;

function child<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

function newMap<K, V>(): Map<K, V> {
  return new Map<K, V>();
}

/**
 * A per-tick memo keyed by a (candidate set, task shape) pair: the candidate set by identity, the
 * shape by its four amounts. Looked up once per job, so it builds no string key (a tick sees
 * thousands of jobs, each with its own resources object).
 */
export class ShapeMemo<T> {
  readonly #byCandidates = new Map<JobCandidates, ByCpu<T>>();
  readonly #make: () => T;

  /** @param make creates the value of a pair seen for the first time */
  constructor(make: () => T) {
    this.#make = make;
  }

  /** The value of (`candidates`, `need`), created on first use. */
  get(candidates: JobCandidates, need: ResourceAmounts): T {
    const byCpu = child(this.#byCandidates, candidates, newMap<number, ByMemory<T>>);
    const byMemory = child(byCpu, need.cpuMillicores, newMap<number, ByGpu<T>>);
    const byGpu = child(byMemory, need.memoryBytes, newMap<number, ByTpu<T>>);
    const byTpu = child(byGpu, need.gpuCount, newMap<number, T>);
    return child(byTpu, need.tpuChips, this.#make);
  }
}
