import type { DeviceSpec } from './device-spec.js';
import { getTpuTopology } from './tpu-topology.js';
import type { TpuTopology } from './tpu-topology.js';

/**
 * A device whose TPU variant was looked up in the topology table once, where it entered the process
 * (proto decode, a config file, a CLI flag). Code below that edge reads the slice shape from `tpu`
 * and never parses the variant string again.
 */
export type ResolvedDevice =
  | { readonly kind: 'cpu' }
  | { readonly kind: 'gpu'; readonly variant: string; readonly count?: number }
  | { readonly kind: 'tpu'; readonly tpu: TpuTopology; readonly count?: number };

/**
 * Resolves a device at an edge: a TPU variant becomes its topology row (`v5e-16` → `v5litepod-16`).
 *
 * @throws {IrisError} IRIS_INVALID_ARGUMENT "unknown TPU type" for a variant not in the table
 */
export function resolveDevice(device: DeviceSpec): ResolvedDevice {
  if (device.kind === 'tpu') return withCount({ kind: 'tpu', tpu: getTpuTopology(device.variant) }, device.count);
  if (device.kind === 'gpu') return withCount({ kind: 'gpu', variant: device.variant }, device.count);
  return { kind: 'cpu' };
}

function withCount<T extends ResolvedDevice>(device: T, count: number | undefined): T {
  return count === undefined ? device : { ...device, count };
}
