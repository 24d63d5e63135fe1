import { IrisError } from '../errors.js';
import type { Coscheduling, DeviceSpec } from './device-spec.js';
import { resolveDevice } from './resolved-device.js';
import type { ResolvedDevice } from './resolved-device.js';
import type { TpuTopology } from './tpu-topology.js';

/** Jobs asking for more tasks than this are FAILED at submit with no tasks (Marin behaviour). */
export const MAX_REPLICAS_PER_JOB = 10_000;

/** The task count and gang shape a job ends up with after the replica rules. */
export interface ReplicaPlan {
  /** Tasks to create (`0..replicas-1`). */
  readonly replicas: number;
  /** Slices a multi-VM TPU job spans (`replicas / vm_count`); 1 for every other job. */
  readonly sliceCount: number;
  /** Gang shape, or `null` when the tasks are placed independently. */
  readonly coscheduling: Coscheduling | null;
  /**
   * Set when the job must be FAILED at once with no tasks (`replicas N exceeds max 10000`);
   * `null` otherwise.
   */
  readonly failure: string | null;
}

/**
 * Applies the TPU replica rule: a multi-VM variant runs one task per VM, so `1` becomes `vm_count`
 * and any other count must be a whole number of slices. `replicas ≤ 0` means 1. Non-TPU devices and
 * single-VM TPU variants keep their count.
 *
 * @example adjustTpuReplicas({ kind: 'tpu', variant: 'v5litepod-16' }, 1) // 4
 * @throws {IrisError} IRIS_INVALID_ARGUMENT if the TPU variant is unknown, or if replicas is not a
 *   multiple of the variant's `vm_count`
 */
export function adjustTpuReplicas(device: DeviceSpec, replicas: number): number {
  const resolved = resolveDevice(device);
  return adjustReplicas(resolved.kind === 'tpu' ? resolved.tpu : undefined, replicas);
}

/** {@link adjustTpuReplicas} for a resolved topology (undefined: not a TPU). */
function adjustReplicas(topology: TpuTopology | undefined, replicas: number): number {
  const requested = replicas <= 0 ? 1 : Math.floor(replicas);
  if (topology === undefined) return requested;
  if (topology.vmCount === 1) return requested;
  if (requested === 1) return topology.vmCount;
  if (requested % topology.vmCount !== 0) {
    throw new IrisError(
      'IRIS_INVALID_ARGUMENT',
      `replicas must be a multiple of ${topology.vmCount} for ${topology.name}; for K slices use replicas=K*${topology.vmCount}`,
      { details: { replicas: requested, variant: topology.name, vmCount: topology.vmCount } },
    );
  }
  return requested;
}

/**
 * Returns the gang shape for a job with `replicas` tasks (already adjusted by `adjustTpuReplicas`):
 * multi-VM TPU → `{ groupBy: 'tpu-name', tasksPerGroup: vm_count }`; GPU with more than one task →
 * `{ groupBy: 'pool', tasksPerGroup: 0 }` (all tasks in one group); otherwise `null`. Single-VM TPU
 * variants are never coscheduled: each VM is its own `tpu-name` group (Marin #5219).
 *
 * @throws {IrisError} IRIS_INVALID_ARGUMENT if the TPU variant is unknown
 */
export function resolveCoscheduling(device: DeviceSpec, replicas: number): Coscheduling | null {
  return coschedulingOf(resolveDevice(device), replicas);
}

/** {@link resolveCoscheduling} for a resolved device. */
function coschedulingOf(device: ResolvedDevice, replicas: number): Coscheduling | null {
  if (device.kind === 'tpu') return device.tpu.vmCount > 1 ? { groupBy: 'tpu-name', tasksPerGroup: device.tpu.vmCount } : null;
  if (device.kind === 'gpu' && replicas > 1) return { groupBy: 'pool', tasksPerGroup: 0 };
  return null;
}

/**
 * Runs every replica rule of a submission at once: adjusts the count, derives the gang shape and
 * the slice count, and flags counts above `MAX_REPLICAS_PER_JOB` (the job is then FAILED with the
 * returned `failure` and gets no tasks).
 *
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for an unknown TPU variant or a count that is not a
 *   multiple of the variant's `vm_count`
 */
export function planReplicas(device: DeviceSpec, replicas: number): ReplicaPlan {
  return replicaPlanOf(resolveDevice(device), replicas);
}

/** {@link planReplicas} for a device resolved at the edge (the controller's submit path). */
export function replicaPlanOf(device: ResolvedDevice, replicas: number): ReplicaPlan {
  const adjusted = adjustReplicas(device.kind === 'tpu' ? device.tpu : undefined, replicas);
  const coscheduling = coschedulingOf(device, adjusted);
  const sliceCount =
    coscheduling !== null && coscheduling.tasksPerGroup > 0 ? adjusted / coscheduling.tasksPerGroup : 1;
  const failure = adjusted > MAX_REPLICAS_PER_JOB ? `replicas ${adjusted} exceeds max ${MAX_REPLICAS_PER_JOB}` : null;
  return { replicas: adjusted, sliceCount, coscheduling, failure };
}
