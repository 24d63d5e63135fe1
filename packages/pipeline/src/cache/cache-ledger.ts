import { RiggingError, readText } from '@marin/rigging';
import { z } from 'zod';
import { PipelineError } from '../errors.js';

/** The file whose presence (with `is_finished: true`) marks a cache directory as finished. */
export const LEDGER_FILE = 'shard_ledger.json';
/** Token and row totals beside the ledger, for readers that only want the counts. */
export const STATS_FILE = '.stats.json';

const Counts = z.record(z.string(), z.number().int().nonnegative());

/**
 * Levanter's `CacheLedger` as stored in `shard_ledger.json`. Only `total_num_rows` and `shard_rows`
 * are required, as in Levanter; the rest take Levanter's defaults.
 */
export const CacheLedgerSchema = z.object({
  total_num_rows: z.number().int().nonnegative(),
  shard_rows: Counts,
  is_finished: z.boolean().default(false),
  finished_shards: z.array(z.string()).default([]),
  field_counts: Counts.default({}),
  field_counts_by_shard: z.record(z.string(), Counts).default({}),
  layout: z.enum(['consolidated', 'sharded']).default('consolidated'),
  metadata: z.object({ preprocessor_metadata: z.record(z.string(), z.unknown()).default({}) }).loose().default({ preprocessor_metadata: {} }),
});

/** A parsed `shard_ledger.json`. */
export type CacheLedger = z.output<typeof CacheLedgerSchema>;

/** The field every text cache has. */
export const INPUT_IDS_FIELD = 'input_ids';

/** `shard_ledger.json` text with Levanter's field order. */
export function formatCacheLedger(ledger: CacheLedger): string {
  const ordered: CacheLedger = {
    total_num_rows: ledger.total_num_rows,
    shard_rows: ledger.shard_rows,
    is_finished: ledger.is_finished,
    finished_shards: ledger.finished_shards,
    field_counts: ledger.field_counts,
    field_counts_by_shard: ledger.field_counts_by_shard,
    layout: ledger.layout,
    metadata: ledger.metadata,
  };
  return `${JSON.stringify(ordered)}\n`;
}

/**
 * Reads and checks the finished ledger of the cache directory `dirUrl`.
 * @throws {PipelineError} PIPELINE_CACHE_INVALID when the ledger is missing (the cache is unfinished
 *   or absent), unparseable, or not marked finished
 */
export async function readFinishedLedger(dirUrl: string): Promise<CacheLedger> {
  const url = `${dirUrl}/${LEDGER_FILE}`;
  let text: string;
  try {
    text = await readText(url);
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) {
      throw new PipelineError('PIPELINE_CACHE_INVALID', `no finished token cache at "${dirUrl}": "${url}" is missing (the cache was never finished)`, { cause: e });
    }
    throw new PipelineError('PIPELINE_CACHE_INVALID', `cannot read "${url}"`, { cause: e });
  }
  let ledger: CacheLedger;
  try {
    ledger = CacheLedgerSchema.parse(JSON.parse(text));
  } catch (e) {
    throw new PipelineError('PIPELINE_CACHE_INVALID', `"${url}" is not a valid cache ledger`, { cause: e });
  }
  if (!ledger.is_finished) throw new PipelineError('PIPELINE_CACHE_INVALID', `token cache "${dirUrl}" is not finished ("is_finished" is false in "${url}")`);
  return ledger;
}

/** `.stats.json` text: total tokens and total rows (documents). */
export function formatStats(tokens: number, rows: number): string {
  return `${JSON.stringify({ total_tokens: tokens, total_elements: rows })}\n`;
}
