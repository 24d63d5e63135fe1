import { IrisError } from '../errors.js';
import type { AttributeValue, DeviceConfig } from '../gen/iris/v1/types.js';
import { getTpuTopology } from '../core/tpu-topology.js';
import type { WorkerConfig } from './worker-options.js';

/** What a worker advertises about its devices: attributes, device config and TPU identity. */
export interface WorkerDevice {
  attributes: Record<string, string | number>;
  device: DeviceConfig;
  tpu?: { name: string; workerId: number; acceleratorType: string } | undefined;
}

/**
 * Derives a worker's advertised attributes: the defaults of a local worker, the
 * device keys of a simulated TPU VM or GPU host, then the caller's extra attributes.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for an unknown TPU variant or a `tpu-worker-id` outside the slice
 */
export function workerDevice(config: Pick<WorkerConfig, 'tpu' | 'gpu' | 'attributes'>): WorkerDevice {
  const attributes: Record<string, string | number> = { 'device-type': 'cpu', preemptible: 'false' };
  let device: DeviceConfig = { kind: { $case: 'cpu', value: { variant: 'cpu' } } };
  let tpu: WorkerDevice['tpu'];
  if (config.tpu !== undefined) {
    const topology = getTpuTopology(config.tpu.variant);
    if (config.tpu.workerId >= topology.vmCount) {
      throw new IrisError(
        'IRIS_INVALID_ARGUMENT',
        `tpu-worker-id ${config.tpu.workerId} is outside slice "${config.tpu.name}" of ${topology.name} (${topology.vmCount} VMs)`,
        { details: { field: 'tpu.workerId' } },
      );
    }
    Object.assign(attributes, {
      'device-type': 'tpu',
      'device-variant': topology.name,
      'tpu-name': config.tpu.name,
      'tpu-worker-id': config.tpu.workerId,
      'tpu-vm-count': topology.vmCount,
      simulated: 'true',
    });
    device = { kind: { $case: 'tpu', value: { variant: topology.name, topology: '', count: topology.chipsPerVm } } };
    tpu = { name: config.tpu.name, workerId: config.tpu.workerId, acceleratorType: topology.name };
  } else if (config.gpu !== undefined) {
    const variant = config.gpu.variant.toLowerCase();
    Object.assign(attributes, { 'device-type': 'gpu', 'device-variant': variant, 'gpu-variant': variant, 'gpu-count': config.gpu.count });
    device = { kind: { $case: 'gpu', value: { variant, count: config.gpu.count } } };
  }
  Object.assign(attributes, config.attributes);
  return { attributes, device, tpu };
}

/** Converts attributes to their wire form: integers as `int_value`, other numbers as `float_value`. */
export function attributesToWire(attributes: Readonly<Record<string, string | number>>): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(attributes)) {
    out[key] =
      typeof value === 'string'
        ? { v: { $case: 'stringValue', value } }
        : Number.isInteger(value)
          ? { v: { $case: 'intValue', value } }
          : { v: { $case: 'floatValue', value } };
  }
  return out;
}

/**
 * Parses an attribute list as given to `--attributes` or `IRIS_WORKER_ATTRIBUTES`: `k=v,k2=3`.
 * Values that parse as finite numbers become numbers; the value is everything after the first `=`.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for an entry without `=` or with an empty key
 */
export function parseAttributeList(text: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const key = eq < 0 ? '' : item.slice(0, eq).trim();
    if (key === '') {
      throw new IrisError('IRIS_INVALID_ARGUMENT', `attribute "${item}" must look like key=value`, { details: { field: 'attributes', item } });
    }
    const value = item.slice(eq + 1).trim();
    const asNumber = Number(value);
    out[key] = value !== '' && Number.isFinite(asNumber) ? asNumber : value;
  }
  return out;
}
