import type { LaunchJobRequest } from '../gen/iris/v1/controller.js';
import type { DeviceConfig } from '../gen/iris/v1/types.js';
import { resolveDevice } from '../core/resolved-device.js';
import type { ResolvedDevice } from '../core/resolved-device.js';
import type { ResourceAmounts } from '../scheduler/types.js';

/** What one task of `req` needs. */
export function taskResources(req: LaunchJobRequest): ResourceAmounts {
  const kind = req.resources?.device?.kind;
  return {
    cpuMillicores: req.resources?.cpuMillicores ?? 0,
    memoryBytes: req.resources?.memoryBytes ?? 0,
    gpuCount: kind?.$case === 'gpu' ? kind.value.count : 0,
    tpuChips: kind?.$case === 'tpu' ? kind.value.count : 0,
  };
}

/**
 * Decodes a device from the wire: a TPU variant is looked up in the topology table here, once, and
 * code past this point reads the slice shape from the resolved row.
 *
 * @throws {IrisError} IRIS_INVALID_ARGUMENT "unknown TPU type" for a TPU variant not in the table
 */
export function resolvedDeviceOf(device: DeviceConfig | undefined): ResolvedDevice {
  const kind = device?.kind;
  if (kind?.$case === 'tpu') return resolveDevice({ kind: 'tpu', variant: kind.value.variant, count: kind.value.count });
  if (kind?.$case === 'gpu') return { kind: 'gpu', variant: kind.value.variant.toLowerCase() || 'auto', count: kind.value.count };
  return { kind: 'cpu' };
}

/** The device class preemption matches on: `tpu:<variant>`, `gpu:<variant>` or `cpu`. */
export function deviceKeyOf(req: LaunchJobRequest): string {
  const kind = req.resources?.device?.kind;
  if (kind?.$case === 'tpu') return `tpu:${kind.value.variant}`;
  if (kind?.$case === 'gpu') return `gpu:${kind.value.variant.toLowerCase() || 'auto'}`;
  return 'cpu';
}
