import { ConstraintIndex } from './constraint-index.js';
import { CandidateCache } from './job-candidates.js';
import type { Constraint, ResourceAmounts, SchedulerWorker } from './types.js';

/** One unclaimed entry of a job's reservation, represented by a holder task. */
export interface ReservationEntryRequest {
  readonly holderTaskId: string;
  /** The job that made the reservation. */
  readonly reservationJobId: string;
  /** What the claimed worker must be able to host (checked against its totals). */
  readonly resources: ResourceAmounts;
  readonly constraints: readonly Constraint[];
}

/** A worker claimed for one reservation entry. */
export interface ReservationClaim {
  readonly holderTaskId: string;
  readonly reservationJobId: string;
  readonly workerId: string;
}

function hosts(capacity: ResourceAmounts, need: ResourceAmounts): boolean {
  return (
    need.cpuMillicores <= capacity.cpuMillicores &&
    need.memoryBytes <= capacity.memoryBytes &&
    need.gpuCount <= capacity.gpuCount &&
    need.tpuChips <= capacity.tpuChips
  );
}

/**
 * Claims workers for reservation entries, in the order given: each entry takes the first healthy
 * worker that meets its REQUIRED constraints (taints included), is large enough for its resources
 * when idle, and is not claimed already (a worker carrying `reservation-job`, or one claimed
 * earlier in this pass). Claims consume nothing: the holder never runs, so the worker's capacity
 * stays for the reserving job and its children. Entries with no such worker stay unclaimed.
 *
 * Pure: the same input gives the same claims.
 */
export function claimReservations(workers: readonly SchedulerWorker[], entries: readonly ReservationEntryRequest[]): ReservationClaim[] {
  if (entries.length === 0) return [];
  const cache = new CandidateCache(new ConstraintIndex(workers));
  const claimed = new Uint8Array(workers.length);
  const out: ReservationClaim[] = [];
  for (const entry of entries) {
    const { order } = cache.get(entry.constraints);
    for (const i of order) {
      const w = workers[i];
      if (w === undefined || claimed[i] === 1 || !hosts(w.capacity, entry.resources)) continue;
      claimed[i] = 1;
      out.push({ holderTaskId: entry.holderTaskId, reservationJobId: entry.reservationJobId, workerId: w.workerId });
      break;
    }
  }
  return out;
}
