import { writeText } from '@marin/rigging';
import { PipelineError } from '../errors.js';
import { INPUT_IDS_FIELD, LEDGER_FILE, STATS_FILE, formatCacheLedger, formatStats, readFinishedLedger } from './cache-ledger.js';
import type { CacheLedger } from './cache-ledger.js';
import type { CacheWriteResult } from './cache-writer.js';

/**
 * Levanter's rules for a part name in a sharded ledger: relative (no scheme, not absolute) and unique.
 * Parts must also be direct children so the name maps to exactly one directory.
 */
function checkPartNames(splitUrl: string, partNames: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of partNames) {
    if (name === '' || name.includes('://') || name.startsWith('/') || name.includes('/') || name === '.' || name === '..') {
      throw new PipelineError('PIPELINE_CACHE_INVALID', `part name "${name}" of "${splitUrl}" must be a plain directory name`);
    }
    if (seen.has(name)) throw new PipelineError('PIPELINE_CACHE_INVALID', `part "${name}" of "${splitUrl}" is listed twice`);
    seen.add(name);
  }
}

/**
 * Publishes a split as Levanter's "sharded" layout: each `<splitUrl>/<part>` is a finished consolidated
 * cache (e.g. from {@link createCacheWriter}), and the top-level `shard_ledger.json` lists them in
 * order with their row and field counts, summed so Levanter's sharded-ledger validation passes.
 * Writes `.stats.json`, then the ledger last. Metadata comes from the first part.
 * @throws {PipelineError} PIPELINE_CACHE_INVALID when a part is missing, unfinished or itself sharded,
 *   or a part name is not a plain unique directory name
 */
export async function writeShardedLedger(splitUrl: string, partNames: readonly string[]): Promise<CacheWriteResult> {
  const url = splitUrl.replace(/\/+$/, '');
  checkPartNames(url, partNames);
  const parts = await Promise.all(partNames.map((name) => readFinishedLedger(`${url}/${name}`)));
  const shardRows: Record<string, number> = {};
  const byShard: Record<string, Record<string, number>> = {};
  const fieldCounts: Record<string, number> = {};
  let rows = 0;
  parts.forEach((part, i) => {
    const name = partNames[i]!;
    if (part.layout !== 'consolidated') throw new PipelineError('PIPELINE_CACHE_INVALID', `part "${url}/${name}" is itself sharded; parts must be consolidated caches`);
    if (part.total_num_rows > 0 && part.field_counts[INPUT_IDS_FIELD] === undefined) {
      throw new PipelineError('PIPELINE_CACHE_INVALID', `part "${url}/${name}" has rows but no "${INPUT_IDS_FIELD}" field count in its ledger`);
    }
    shardRows[name] = part.total_num_rows;
    byShard[name] = { ...part.field_counts };
    for (const [field, count] of Object.entries(part.field_counts)) fieldCounts[field] = (fieldCounts[field] ?? 0) + count;
    rows += part.total_num_rows;
  });
  const ledger: CacheLedger = {
    total_num_rows: rows,
    shard_rows: shardRows,
    is_finished: true,
    finished_shards: [...partNames],
    field_counts: fieldCounts,
    field_counts_by_shard: byShard,
    layout: 'sharded',
    metadata: { preprocessor_metadata: parts[0]?.metadata.preprocessor_metadata ?? {} },
  };
  const tokens = fieldCounts[INPUT_IDS_FIELD] ?? 0;
  await writeText(`${url}/${STATS_FILE}`, formatStats(tokens, rows));
  await writeText(`${url}/${LEDGER_FILE}`, formatCacheLedger(ledger));
  return { rows, tokens };
}
