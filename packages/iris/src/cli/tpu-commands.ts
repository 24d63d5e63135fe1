import { IrisError } from '../errors.js';
import { listTpuVariants } from '../core/tpu-topology.js';
import type { CliIo } from './cli-context.js';
import { formatTable } from './cli-format.js';

/**
 * `iris tpu list [--family F] [--json]`: the TPU topology table. A slice of a variant runs one task
 * per VM, each seeing `chipsPerVm` chips; `--tpu VARIANT` on `job run` asks for one whole slice.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for an unknown family.
 */
export async function tpuListCommand(flags: { family?: string; json?: boolean }, io: CliIo): Promise<number> {
  const rows = listTpuVariants(flags.family);
  if (rows.length === 0) {
    const families = [...new Set(listTpuVariants().map((r) => r.family))].join(', ');
    throw new IrisError('IRIS_INVALID_ARGUMENT', `--family "${flags.family}": expected one of ${families} (or v5e)`);
  }
  if (flags.json) {
    io.stdout(`${JSON.stringify(rows.map((r) => ({ ...r, tasks: r.vmCount })), null, 2)}\n`);
    return 0;
  }
  const table = rows.map((r) => [r.name, r.family, String(r.chips), String(r.hosts), String(r.vmCount), String(r.chipsPerVm)]);
  io.stdout(`${formatTable(['VARIANT', 'FAMILY', 'CHIPS', 'HOSTS', 'VMS (TASKS)', 'CHIPS PER VM'], table)}\n`);
  return 0;
}
