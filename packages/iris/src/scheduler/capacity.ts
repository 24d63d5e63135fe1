import type { ResourceAmounts, SchedulerWorker } from './types.js';

/** The checks of `canFit`, in the order they are made. */
export type FitCheck = 'building' | 'cpu' | 'memory' | 'gpu' | 'tpu';

/** Why one worker cannot take one task: the first failing check with the numbers behind it. */
export interface FitFailure {
  readonly check: FitCheck;
  readonly need: number;
  readonly available: number;
}

/** Position of each check, so "got further" can be compared. */
export const FIT_CHECK_ORDER: Readonly<Record<FitCheck, number>> = { building: 0, cpu: 1, memory: 2, gpu: 3, tpu: 4 };

/** Scheduler defaults. */
export const DEFAULT_MAX_BUILDING_TASKS = 8;
/** Scheduler defaults. */
export const DEFAULT_MAX_ASSIGNMENTS_PER_WORKER = 4;

/**
 * Free capacity, building counts and this tick's assignment counts of every worker, updated as
 * the tick places tasks. Within a tick free capacity only shrinks and counts only grow, so a task
 * that fits nowhere now cannot fit later in the same tick.
 */
export class TickCapacity {
  readonly cpu: Float64Array;
  readonly memory: Float64Array;
  readonly gpu: Float64Array;
  readonly tpu: Float64Array;
  readonly building: Int32Array;
  readonly assigned: Int32Array;
  readonly maxBuilding: number;
  readonly maxAssignments: number;
  readonly #workers: readonly SchedulerWorker[];

  constructor(workers: readonly SchedulerWorker[], maxBuilding: number, maxAssignments: number) {
    const n = workers.length;
    this.#workers = workers;
    this.cpu = new Float64Array(n);
    this.memory = new Float64Array(n);
    this.gpu = new Float64Array(n);
    this.tpu = new Float64Array(n);
    this.building = new Int32Array(n);
    this.assigned = new Int32Array(n);
    this.maxBuilding = maxBuilding;
    this.maxAssignments = maxAssignments;
    workers.forEach((w, i) => {
      this.cpu[i] = w.capacity.cpuMillicores - w.committed.cpuMillicores;
      this.memory[i] = w.capacity.memoryBytes - w.committed.memoryBytes;
      this.gpu[i] = w.capacity.gpuCount - w.committed.gpuCount;
      this.tpu[i] = w.capacity.tpuChips - w.committed.tpuChips;
      this.building[i] = w.buildingCount;
    });
  }

  /** True while the worker may still receive an assignment this tick. */
  underTickCap(i: number): boolean {
    return (this.assigned[i] as number) < this.maxAssignments;
  }

  /** True when worker `i` can take a task needing `need` now (ignores the per-tick cap). */
  fits(i: number, need: ResourceAmounts): boolean {
    return (
      (this.building[i] as number) < this.maxBuilding &&
      (need.cpuMillicores <= 0 || need.cpuMillicores <= (this.cpu[i] as number)) &&
      (need.memoryBytes <= 0 || need.memoryBytes <= (this.memory[i] as number)) &&
      (need.gpuCount <= 0 || need.gpuCount <= (this.gpu[i] as number)) &&
      (need.tpuChips <= 0 || need.tpuChips <= (this.tpu[i] as number))
    );
  }

  /** The first check worker `i` fails for `need` with its current free capacity, or `null`. */
  fitFailure(i: number, need: ResourceAmounts): FitFailure | null {
    const building = this.building[i] as number;
    if (building >= this.maxBuilding) return { check: 'building', need: this.maxBuilding, available: building };
    return resourceFailure(need, {
      cpuMillicores: this.cpu[i] as number,
      memoryBytes: this.memory[i] as number,
      gpuCount: this.gpu[i] as number,
      tpuChips: this.tpu[i] as number,
    });
  }

  /** The first check worker `i` would fail if it were idle (nothing committed, nothing building). */
  idleFitFailure(i: number, need: ResourceAmounts): FitFailure | null {
    const worker = this.#workers[i];
    return worker === undefined ? { check: 'cpu', need: need.cpuMillicores, available: 0 } : resourceFailure(need, worker.capacity);
  }

  /** Records an assignment of a task needing `need` to worker `i`. */
  deduct(i: number, need: ResourceAmounts): void {
    this.cpu[i] = (this.cpu[i] as number) - need.cpuMillicores;
    this.memory[i] = (this.memory[i] as number) - need.memoryBytes;
    this.gpu[i] = (this.gpu[i] as number) - need.gpuCount;
    this.tpu[i] = (this.tpu[i] as number) - need.tpuChips;
    this.building[i] = (this.building[i] as number) + 1;
    this.assigned[i] = (this.assigned[i] as number) + 1;
  }
}

function resourceFailure(need: ResourceAmounts, free: ResourceAmounts): FitFailure | null {
  if (need.cpuMillicores > 0 && need.cpuMillicores > free.cpuMillicores) {
    return { check: 'cpu', need: need.cpuMillicores, available: free.cpuMillicores };
  }
  if (need.memoryBytes > 0 && need.memoryBytes > free.memoryBytes) {
    return { check: 'memory', need: need.memoryBytes, available: free.memoryBytes };
  }
  if (need.gpuCount > 0 && need.gpuCount > free.gpuCount) return { check: 'gpu', need: need.gpuCount, available: free.gpuCount };
  if (need.tpuChips > 0 && need.tpuChips > free.tpuChips) return { check: 'tpu', need: need.tpuChips, available: free.tpuChips };
  return null;
}

function cores(millicores: number): string {
  return String(Math.round(Math.max(0, millicores)) / 1000);
}

function gib(bytes: number): string {
  return (Math.max(0, bytes) / 2 ** 30).toFixed(1);
}

/** Renders a fit failure as pending-reason diagnostics quote it, e.g. `Insufficient CPU (need 2 cores, available 1 cores)`. */
export function formatFitFailure(failure: FitFailure): string {
  switch (failure.check) {
    case 'building':
      return `Worker at building task limit (${failure.available}/${failure.need} concurrent builds)`;
    case 'cpu':
      return `Insufficient CPU (need ${cores(failure.need)} cores, available ${cores(failure.available)} cores)`;
    case 'memory':
      return `Insufficient memory (need ${gib(failure.need)} GiB, available ${gib(failure.available)} GiB)`;
    case 'gpu':
      return `Insufficient GPUs (need ${failure.need}, available ${Math.max(0, failure.available)})`;
    case 'tpu':
      return `Insufficient TPU chips (need ${failure.need}, available ${Math.max(0, failure.available)})`;
  }
}

/**
 * Picks the failure that best explains why no candidate fits: the one from the worker that got
 * furthest through the checks, and among those the one with the most of the missing resource.
 */
export function closestFailure(failures: Iterable<FitFailure>): FitFailure | undefined {
  let best: FitFailure | undefined;
  for (const f of failures) {
    if (
      best === undefined ||
      FIT_CHECK_ORDER[f.check] > FIT_CHECK_ORDER[best.check] ||
      (f.check === best.check && (f.check === 'building' ? f.available < best.available : f.available > best.available))
    ) {
      best = f;
    }
  }
  return best;
}
