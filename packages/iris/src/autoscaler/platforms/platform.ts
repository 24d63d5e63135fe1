import type { ScaleGroupConfig } from '../cluster-config.js';

/** What the autoscaler asks a platform to bring up. */
export interface SliceRequest {
  /** Unique id, `<group>-<epoch ms>-<n>`; every worker of the slice advertises it as `slice-id`. */
  readonly sliceId: string;
  readonly group: ScaleGroupConfig;
  /** Address the slice's workers dial. */
  readonly controllerAddress: string;
  /** Token the workers send, when auth is on. */
  readonly authToken?: string | undefined;
}

/** A slice the platform reports, for adoption after a controller restart. */
export interface PlatformSlice {
  readonly sliceId: string;
  readonly group: string;
  /** `preempted`: the platform took it back; `failed`: it will never come up. */
  readonly status: 'booting' | 'running' | 'preempted' | 'failed';
}

/**
 * Where slices come from. One interface over this machine (`local`), hosts reached over SSH
 * (`manual`) and Cloud TPU VMs (`gcp`). `createSlice` resolves once the platform accepted the whole
 * slice (or throws, leaving nothing behind); workers then register with the controller on their own.
 */
export interface Platform extends AsyncDisposable {
  readonly kind: 'local' | 'manual' | 'gcp';
  /**
   * Creates every VM of a slice, all or nothing.
   * @throws {IrisError} IRIS_INSUFFICIENT_RESOURCES when capacity or quota is exhausted; IRIS_UNAVAILABLE when the platform cannot be reached.
   */
  createSlice(request: SliceRequest): Promise<void>;
  /** Deletes every VM of a slice; a missing slice is not an error. */
  deleteSlice(sliceId: string): Promise<void>;
  /** Slices the platform currently holds for this cluster. */
  listSlices(): Promise<PlatformSlice[]>;
  /** Deletes nothing; releases the platform's own resources (connections, child handles). */
  close(): Promise<void>;
}

/** Worker attributes that tie a worker to its slice and group. */
export function sliceAttributes(request: SliceRequest): Record<string, string | number> {
  return { ...request.group.attributes, 'scale-group': request.group.name, 'slice-id': request.sliceId, ...(request.group.zone ? { zone: request.group.zone, region: request.group.zone.replace(/-[a-z]$/, '') } : {}) };
}

/** Workers (VMs) in one slice of the group: `vm_count` for TPU groups, 1 for CPU. */
export function vmCountOf(group: ScaleGroupConfig): number {
  return group.slice.kind === 'tpu' ? group.slice.tpu.vmCount : 1;
}
