import { findTpuTopology, listTpuVariants } from '@marin/iris/core';
import type { TpuTopology } from '@marin/iris/core';
import { FrayError } from '../errors.js';

/**
 * The topology row of a TPU variant from iris's table (the single source of truth), with `v5e-N` normalised.
 * This is the look-up at the edge; code past it reads the row with {@link tpuShapeOf}.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT "unknown TPU type" for a variant not in the table
 */
export function tpuShape(variant: string): TpuTopology {
  const row = typeof variant === 'string' ? findTpuTopology(variant) : undefined;
  if (row === undefined) {
    const families = [...new Set(listTpuVariants().map((r) => r.family))].join(', ');
    throw new FrayError('FRAY_INVALID_ARGUMENT', `unknown TPU type ${JSON.stringify(variant)}; known families: ${families} (see listTpuVariants())`, {
      details: { variant },
    });
  }
  return row;
}

/** The rows of the frozen TPU devices and alternative lists a `ResourceConfig` resolved when it was built. */
const RESOLVED_DEVICES = new WeakMap<object, TpuTopology>();
const RESOLVED_ALTERNATIVES = new WeakMap<readonly string[], readonly TpuTopology[]>();

/** Records that the frozen `device` was resolved to `row`, so passing it on never reads the table again. */
export function rememberTpuShape(device: Readonly<{ kind: 'tpu'; variant: string }>, row: TpuTopology): void {
  RESOLVED_DEVICES.set(device, row);
}

/** The row a frozen TPU device was resolved to, if a `ResourceConfig` resolved it. */
export function resolvedTpuShape(device: object | undefined): TpuTopology | undefined {
  return device === undefined ? undefined : RESOLVED_DEVICES.get(device);
}

/** Records the rows of a frozen list of TPU alternatives (in list order). */
export function rememberTpuAlternatives(alternatives: readonly string[], rows: readonly TpuTopology[]): void {
  RESOLVED_ALTERNATIVES.set(alternatives, rows);
}

/** The rows a frozen list of TPU alternatives was resolved to, if a `ResourceConfig` resolved it. */
export function resolvedTpuAlternatives(alternatives: readonly string[] | undefined): readonly TpuTopology[] | undefined {
  return alternatives === undefined ? undefined : RESOLVED_ALTERNATIVES.get(alternatives);
}

/**
 * The topology row of a TPU device: the one its `ResourceConfig` resolved when it was built, with no second
 * look-up; a device written by hand (the exported helpers accept one) is looked up here, once.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for a hand-written device of an unknown TPU type
 */
export function tpuShapeOf(device: Readonly<{ kind: 'tpu'; variant: string }>): TpuTopology {
  return RESOLVED_DEVICES.get(device) ?? tpuShape(device.variant);
}

/** `"v5litepod-16" (4 VMs × 4 chips)`: how error messages name a TPU shape. */
export function describeTpuShape(row: TpuTopology): string {
  return `"${row.name}" (${row.vmCount} VM${row.vmCount === 1 ? '' : 's'} x ${row.chipsPerVm} chips)`;
}
