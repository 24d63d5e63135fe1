import { z } from 'zod';
import { FrayError } from '../errors.js';
import { GPU_TYPES, isGpuType } from './gpu-types.js';
import type { GpuType } from './gpu-types.js';
import { parseSizeBytes } from './size-string.js';
import type { TpuTopology } from '@marin/iris/core';
import {
  describeTpuShape,
  rememberTpuAlternatives,
  rememberTpuShape,
  resolvedTpuAlternatives,
  resolvedTpuShape,
  tpuShape,
  tpuShapeOf,
} from './tpu-shape.js';

/** The accelerator of one task. */
export type DeviceSpec =
  | { readonly kind: 'cpu' }
  | { readonly kind: 'gpu'; readonly variant: GpuType; readonly count: number }
  | { readonly kind: 'tpu'; readonly variant: string; readonly topology?: string };

/** Fields of a {@link ResourceConfig}; every one is optional and has the documented default. */
export interface ResourceOptions {
  /** Cores per task; fractions allowed. @default 1 */
  cpu?: number;
  /** Memory per task, binary size string. @default "4g" */
  ram?: string;
  /** Disk per task, binary size string. @default "16g" */
  disk?: string;
  /** @default { kind: 'cpu' } */
  device?: DeviceSpec;
  /** `false` requires non-preemptible workers. @default true */
  preemptible?: boolean;
  /** Acceptable regions. @default any */
  regions?: readonly string[];
  /** Required zone. @default any */
  zone?: string;
  /** Tasks (TPU: slices × vm_count). @default 1 */
  replicas?: number;
  /** Other acceptable variants of the same shape as `device`. @default none */
  deviceAlternatives?: readonly string[];
  /** Task image override; LATER: backends ignore it with a warning. */
  image?: string;
  /**
   * Scheduling band on Iris: PRODUCTION preempts INTERACTIVE and BATCH, INTERACTIVE preempts BATCH.
   * @default the enclosing job's band (INTERACTIVE for a root job); the local backend ignores it
   */
  priority?: 'PRODUCTION' | 'INTERACTIVE' | 'BATCH';
}

const SizeString = z.string().refine((s) => {
  try {
    parseSizeBytes(s);
    return true;
  } catch {
    return false;
  }
}, 'must be a size such as "512m", "4g" or "1t"');

const DeviceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('cpu') }),
  z.strictObject({
    kind: z.literal('gpu'),
    variant: z.enum(GPU_TYPES),
    count: z.number().int().positive(),
  }),
  z.strictObject({ kind: z.literal('tpu'), variant: z.string().min(1), topology: z.string().min(1).optional() }),
]);

const ResourceOptionsSchema = z.strictObject({
  cpu: z.number().positive().finite().default(1),
  ram: SizeString.default('4g'),
  disk: SizeString.default('16g'),
  device: DeviceSchema.default({ kind: 'cpu' }),
  preemptible: z.boolean().default(true),
  regions: z.array(z.string().min(1)).min(1).optional(),
  zone: z.string().min(1).optional(),
  replicas: z.number().int().positive().default(1),
  deviceAlternatives: z.array(z.string().min(1)).optional(),
  image: z.string().min(1).optional(),
  priority: z.enum(['PRODUCTION', 'INTERACTIVE', 'BATCH']).optional(),
});

function invalid(message: string, details: Record<string, unknown> = {}, cause?: unknown): FrayError {
  return new FrayError('FRAY_INVALID_ARGUMENT', message, { details, cause });
}

/** Options of {@link ResourceConfig.withTpu}: any field but `device` and `replicas`, plus the slice count. */
export type TpuResourceOptions = Omit<ResourceOptions, 'device' | 'replicas' | 'deviceAlternatives'> & {
  /** Slices; replicas = sliceCount × vm_count. @default 1 */
  sliceCount?: number;
  /** Optional TPU topology string passed to the scheduler. */
  topology?: string;
};

/** Options of {@link ResourceConfig.withGpu}: any field but `device`, plus the GPU count per task. */
export type GpuResourceOptions = Omit<ResourceOptions, 'device'> & {
  /** GPUs per task. @default 1 */
  count?: number;
};

/**
 * What one task (replica) of a job needs. Frozen; derive variants with {@link ResourceConfig.with}.
 * Not part of any step hash.
 *
 * @example
 * ResourceConfig.withTpu('v5litepod-16');                        // replicas 4, cpu 32, ram 128g, disk 50g
 * ResourceConfig.withTpu(['v5litepod-16', 'v6e-16'], { sliceCount: 2 }); // replicas 8, alternatives ['v6e-16']
 */
export class ResourceConfig {
  /** Cores per task. */
  readonly cpu: number;
  /** Memory per task (binary size string). */
  readonly ram: string;
  /** Disk per task (binary size string). */
  readonly disk: string;
  /** The accelerator. */
  readonly device: DeviceSpec;
  /** Whether preemptible workers are acceptable. */
  readonly preemptible: boolean;
  /** Acceptable regions, if restricted. */
  readonly regions: readonly string[] | undefined;
  /** Required zone, if any. */
  readonly zone: string | undefined;
  /** Number of tasks. */
  readonly replicas: number;
  /** Other acceptable device variants of the same shape. */
  readonly deviceAlternatives: readonly string[] | undefined;
  /** Task image override (LATER). */
  readonly image: string | undefined;
  /** Scheduling band on Iris, if set. */
  readonly priority: 'PRODUCTION' | 'INTERACTIVE' | 'BATCH' | undefined;

  /**
   * @throws {FrayError} FRAY_INVALID_ARGUMENT for a bad field, an unknown TPU or GPU variant, or alternatives
   *   whose VM shape differs from the device's
   */
  constructor(options: ResourceOptions = {}) {
    const parsed = ResourceOptionsSchema.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path.join('.') ?? '';
      throw invalid(`invalid resources${path === '' ? '' : `.${path}`}: ${issue?.message ?? 'bad value'}`, { issues: parsed.error.issues }, parsed.error);
    }
    const o = parsed.data;
    let device: DeviceSpec = o.device;
    let alternatives = o.deviceAlternatives;
    // TPU variants are looked up in the table here, once. A device or alternatives list that another
    // ResourceConfig already resolved (`with()`, `withTpu()`) carries its rows, so it is not looked up again.
    let primaryRow: TpuTopology | undefined;
    let alternativeRows: readonly TpuTopology[] | undefined;
    if (device.kind === 'tpu') {
      const primary = resolvedTpuShape(options.device) ?? tpuShape(device.variant);
      primaryRow = primary;
      device = device.topology === undefined ? { kind: 'tpu', variant: primary.name } : { kind: 'tpu', variant: primary.name, topology: device.topology };
      alternativeRows = resolvedTpuAlternatives(options.deviceAlternatives) ?? alternatives?.map((alt) => tpuShape(alt));
      for (const shape of alternativeRows ?? []) {
        if (shape.vmCount !== primary.vmCount || shape.chipsPerVm !== primary.chipsPerVm) {
          throw invalid(
            `TPU types ${describeTpuShape(primary)} and ${describeTpuShape(shape)} have different VM shapes; alternatives must share vm_count and chips_per_vm`,
            { primary: primary.name, alternative: shape.name },
          );
        }
      }
      alternatives = alternativeRows?.map((shape) => shape.name);
    } else if (device.kind === 'gpu') {
      for (const alt of alternatives ?? []) {
        if (!isGpuType(alt)) throw invalid(`unknown GPU type ${JSON.stringify(alt)} in deviceAlternatives; known: ${GPU_TYPES.join(', ')}`, { alternative: alt });
      }
    } else if (alternatives !== undefined && alternatives.length > 0) {
      throw invalid('deviceAlternatives needs a GPU or TPU device', { deviceAlternatives: alternatives });
    }
    this.cpu = o.cpu;
    this.ram = o.ram;
    this.disk = o.disk;
    this.device = Object.freeze({ ...device });
    if (this.device.kind === 'tpu' && primaryRow !== undefined) rememberTpuShape(this.device, primaryRow);
    this.preemptible = o.preemptible;
    this.regions = o.regions === undefined ? undefined : Object.freeze([...o.regions]);
    this.zone = o.zone;
    this.replicas = o.replicas;
    this.deviceAlternatives = alternatives === undefined || alternatives.length === 0 ? undefined : Object.freeze([...new Set(alternatives)]);
    if (this.deviceAlternatives !== undefined && alternativeRows !== undefined) {
      const byName = new Map(alternativeRows.map((row) => [row.name, row]));
      rememberTpuAlternatives(this.deviceAlternatives, this.deviceAlternatives.map((name) => byName.get(name)!));
    }
    this.image = o.image;
    this.priority = o.priority;
    Object.freeze(this);
  }

  /**
   * A CPU-only task.
   * @throws {FrayError} FRAY_INVALID_ARGUMENT for a bad field
   */
  static withCpu(options: Omit<ResourceOptions, 'device' | 'deviceAlternatives'> = {}): ResourceConfig {
    return new ResourceConfig({ ...options, device: { kind: 'cpu' } });
  }

  /**
   * Tasks with `count` GPUs of `variant` each.
   * @throws {FrayError} FRAY_INVALID_ARGUMENT for an unknown GPU type
   */
  static withGpu(variant: GpuType, options: GpuResourceOptions = {}): ResourceConfig {
    const { count = 1, ...rest } = options;
    if (!isGpuType(variant)) throw invalid(`unknown GPU type ${JSON.stringify(variant)}; known: ${GPU_TYPES.join(', ')}`, { variant });
    return new ResourceConfig({ ...rest, device: { kind: 'gpu', variant, count } });
  }

  /**
   * TPU slices: the first type is canonical, the rest become `deviceAlternatives` and must share its VM shape.
   * `replicas = sliceCount × vm_count`; defaults cpu 32, ram `"128g"`, disk `"50g"`.
   *
   * @throws {FrayError} FRAY_INVALID_ARGUMENT for an unknown TPU type, an empty list, a bad slice count, or types
   *   with different VM shapes (the message names both shapes)
   */
  static withTpu(types: string | readonly string[], options: TpuResourceOptions = {}): ResourceConfig {
    const list = typeof types === 'string' ? [types] : [...types];
    const [primary, ...alternatives] = list;
    if (primary === undefined) throw invalid('withTpu needs at least one TPU type');
    const { sliceCount = 1, topology, ...rest } = options;
    if (!Number.isInteger(sliceCount) || sliceCount < 1) {
      throw invalid(`invalid sliceCount ${String(sliceCount)}: must be an integer >= 1`, { sliceCount });
    }
    const shape = tpuShape(primary);
    const device = Object.freeze(topology === undefined ? { kind: 'tpu' as const, variant: shape.name } : { kind: 'tpu' as const, variant: shape.name, topology });
    rememberTpuShape(device, shape);
    return new ResourceConfig({
      cpu: 32,
      ram: '128g',
      disk: '50g',
      ...rest,
      device,
      replicas: sliceCount * shape.vmCount,
      deviceAlternatives: alternatives,
    });
  }

  /**
   * A copy with `changes` applied (validated like the constructor).
   * @throws {FrayError} FRAY_INVALID_ARGUMENT for a bad field
   */
  with(changes: ResourceOptions): ResourceConfig {
    return new ResourceConfig({ ...this.toOptions(), ...changes });
  }

  /** Accelerator chips across all replicas: chips per VM × replicas for TPU, count × replicas for GPU, 0 for CPU. */
  chipCount(): number {
    if (this.device.kind === 'tpu') return tpuShapeOf(this.device).chipsPerVm * this.replicas;
    if (this.device.kind === 'gpu') return this.device.count * this.replicas;
    return 0;
  }

  /** Memory per task in bytes. */
  ramBytes(): number {
    return parseSizeBytes(this.ram, 'ram');
  }

  /** Disk per task in bytes. */
  diskBytes(): number {
    return parseSizeBytes(this.disk, 'disk');
  }

  /** The fields as plain options (what `new ResourceConfig()` accepts). */
  toOptions(): ResourceOptions {
    const o: ResourceOptions = {
      cpu: this.cpu,
      ram: this.ram,
      disk: this.disk,
      device: this.device,
      preemptible: this.preemptible,
      replicas: this.replicas,
    };
    if (this.regions !== undefined) o.regions = this.regions;
    if (this.zone !== undefined) o.zone = this.zone;
    if (this.deviceAlternatives !== undefined) o.deviceAlternatives = this.deviceAlternatives;
    if (this.image !== undefined) o.image = this.image;
    if (this.priority !== undefined) o.priority = this.priority;
    return o;
  }

  /** JSON form (for info files and logs). */
  toJSON(): ResourceOptions {
    return this.toOptions();
  }
}
