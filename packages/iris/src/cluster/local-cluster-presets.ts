import { startController } from './start-controller.js';
import type { ControllerHandle, ControllerOptions } from './start-controller.js';
import { startLocalCluster } from './local-cluster.js';
import type { LocalClusterHandle, LocalClusterOptions } from './local-cluster.js';

/**
 * Named local-cluster shapes for tests and demos: `single` (one small CPU worker), `cpu4` (four
 * CPU workers), `tpuFleet` (two simulated v5litepod-16 slices of 4 workers plus two CPU workers).
 * All use short timings so fault tests take seconds, not minutes.
 */
export const LOCAL_CLUSTER_PRESETS = {
  single: { workers: 1, cpuMillicores: 2000, memoryBytes: 2 * 2 ** 30, termTimeoutMs: 1000 },
  cpu4: { workers: 4, cpuMillicores: 2000, memoryBytes: 2 * 2 ** 30, termTimeoutMs: 1000 },
  tpuFleet: {
    workers: 2,
    simulateTpu: [{ variant: 'v5litepod-16', slices: 2 }],
    cpuMillicores: 2000,
    memoryBytes: 2 * 2 ** 30,
    termTimeoutMs: 1000,
  },
} as const satisfies Record<string, LocalClusterOptions>;

/** A preset name of {@link LOCAL_CLUSTER_PRESETS}. */
export type LocalClusterPreset = keyof typeof LOCAL_CLUSTER_PRESETS;

/**
 * Starts an embedded cluster from a preset, with overrides.
 * @example await using cluster = await startTestCluster('tpuFleet');
 */
export function startTestCluster(preset: LocalClusterPreset, overrides: LocalClusterOptions = {}): Promise<LocalClusterHandle> {
  return startLocalCluster({ ...LOCAL_CLUSTER_PRESETS[preset], ...overrides });
}

/**
 * A controller that never ticks on its own: call `tick()` to run exactly one control tick
 * (scheduling transaction, Reconcile fan-out, observations), so tests step through states.
 */
export function startManualTickController(options: Omit<ControllerOptions, 'autoTick'> = {}): Promise<ControllerHandle> {
  return startController({ ...options, autoTick: false });
}
