import type { DeviceSpec } from '../../resources/resource-config.js';
import { tpuShapeOf } from '../../resources/tpu-shape.js';

/** Scoped VMEM limit (KiB) that Levanter-style JAX payloads need on v5 TPUs. */
const V5_VMEM_KIB = 50000;
/** Scoped VMEM limit (KiB) for v6e TPUs. */
const V6E_VMEM_KIB = 98304;

/**
 * Environment defaults of a device, for JAX payloads (harmless for Node tasks): CPU `JAX_PLATFORMS=cpu`; GPU and
 * TPU `JAX_PLATFORMS=` (empty); `v5litepod-*`/`v5p-*` and `v6e-*` TPUs also `LIBTPU_INIT_ARGS` with the scoped
 * VMEM limit (the family read from the device's topology row).
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for a hand-written TPU device of an unknown type
 */
export function deviceDefaultEnv(device: DeviceSpec): Record<string, string> {
  if (device.kind === 'cpu') return { JAX_PLATFORMS: 'cpu' };
  if (device.kind === 'gpu') return { JAX_PLATFORMS: '' };
  const env: Record<string, string> = { JAX_PLATFORMS: '' };
  const { family } = tpuShapeOf(device);
  if (family === 'v5litepod' || family === 'v5p') {
    env['LIBTPU_INIT_ARGS'] = `--xla_tpu_scoped_vmem_limit_kib=${V5_VMEM_KIB}`;
  } else if (family === 'v6e') {
    env['LIBTPU_INIT_ARGS'] = `--xla_tpu_scoped_vmem_limit_kib=${V6E_VMEM_KIB}`;
  }
  return env;
}

/** `envVars` plus the device defaults for keys the caller did not set. */
export function withDeviceDefaults(envVars: Readonly<Record<string, string>>, device: DeviceSpec): Record<string, string> {
  return { ...deviceDefaultEnv(device), ...envVars };
}
