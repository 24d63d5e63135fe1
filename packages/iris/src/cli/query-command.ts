import { createClusterAdminClient } from '../client/cluster-admin-client.js';
import { requireController } from './cli-context.js';
import type { CliIo } from './cli-context.js';
import { explainControllerError } from './cli-errors.js';
import { formatTable } from './cli-format.js';
import { parseNumberFlag } from './cli-options.js';

/** Flags of `iris query`. */
export interface QueryFlags {
  controller?: string;
  maxRows: string;
  timeout: string;
  json?: boolean;
}

/**
 * `iris query "SQL" [--max-rows N] [--timeout SEC] [--json]`: one read-only statement against a
 * consistent snapshot of the controller's database (admins only), printed as a table or as JSON
 * (`{ columns, rows, truncated }`, each row an array).
 */
export async function queryCommand(sql: string, flags: QueryFlags, io: CliIo): Promise<number> {
  const maxRows = parseNumberFlag('--max-rows', flags.maxRows, true);
  const timeoutMs = parseNumberFlag('--timeout', flags.timeout) * 1000;
  const resolved = await requireController(flags.controller, io.env);
  await using admin = createClusterAdminClient({ address: resolved.address, token: resolved.token });
  const r = await admin.queryState({ sql, maxRows, timeoutMs }).catch((e: unknown) => {
    throw explainControllerError(e, resolved.address);
  });
  const rows = r.rows.map((row) => JSON.parse(row) as unknown[]);
  if (flags.json) {
    io.stdout(`${JSON.stringify({ columns: r.columns, rows, truncated: r.truncated }, null, 2)}\n`);
    return 0;
  }
  const cell = (v: unknown) => (v === null ? 'NULL' : typeof v === 'string' ? v : JSON.stringify(v));
  io.stdout(`${formatTable(r.columns, rows.map((row) => row.map(cell)))}\n`);
  io.stderr(`${rows.length} row${rows.length === 1 ? '' : 's'}${r.truncated ? ` (cut at --max-rows ${maxRows}; more rows match)` : ''} in ${r.elapsedMs} ms\n`);
  return 0;
}
