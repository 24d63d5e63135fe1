import { findTpuTopology, listTpuVariants } from '@marin/iris/core';
import type { TpuTopology } from '@marin/iris/core';
import { FrayError } from '../errors.js';

/**
 * The topology row of a TPU variant from iris's table (the single source of truth), with `v5e-N` normalised.
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

/** `"v5litepod-16" (4 VMs × 4 chips)`: how error messages name a TPU shape. */
export function describeTpuShape(row: TpuTopology): string {
  return `"${row.name}" (${row.vmCount} VM${row.vmCount === 1 ? '' : 's'} x ${row.chipsPerVm} chips)`;
}
