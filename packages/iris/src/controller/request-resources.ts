import type { LaunchJobRequest } from '../gen/iris/v1/controller.js';
import type { DeviceSpec, ResourceAmounts } from '../scheduler/types.js';

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

/** Maps a request's device to the scheduler's device type. */
export function deviceSpecOf(req: LaunchJobRequest): DeviceSpec {
  const kind = req.resources?.device?.kind;
  if (kind?.$case === 'tpu') return { kind: 'tpu', variant: kind.value.variant, topology: kind.value.topology, count: kind.value.count };
  if (kind?.$case === 'gpu') return { kind: 'gpu', variant: kind.value.variant.toLowerCase() || 'auto', count: kind.value.count };
  return { kind: 'cpu', variant: kind?.value.variant ?? '' };
}

/** The device class preemption matches on: `tpu:<variant>`, `gpu:<variant>` or `cpu`. */
export function deviceKeyOf(req: LaunchJobRequest): string {
  const kind = req.resources?.device?.kind;
  if (kind?.$case === 'tpu') return `tpu:${kind.value.variant}`;
  if (kind?.$case === 'gpu') return `gpu:${kind.value.variant.toLowerCase() || 'auto'}`;
  return 'cpu';
}
