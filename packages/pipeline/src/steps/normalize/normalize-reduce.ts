import type { JsonValue } from '@marin/fray';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { decodeFields } from '../../dataflow/record-codec.js';
import { readShufflePartition } from '../../dataflow/shuffle-reader.js';
import { createParquetPartWriter } from '../../formats/parquet-part-writer.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { NORMALIZE_COUNTERS } from './normalize-map.js';

/** The JSON arguments of one normalize reduce task: one output shard. */
export interface NormalizeReduceArgs extends DataflowTaskArgs {
  /** The shard's shuffle run files, from every map task. */
  files: string[];
  main_url: string;
  dups_url: string;
  /** The output columns, the same for every shard. */
  columns: ParquetColumnSpec[] & JsonValue;
  dedup_mode: 'exact' | 'none';
  row_group_bytes: number;
}

/** What a reduce task records: its counters. */
export interface NormalizeReduceResult {
  [key: string]: JsonValue;
  counters: Record<string, number>;
}

/** The counters of one written shard. */
export type ShardCounters = Record<string, number>;

/**
 * Writes one output shard from its records sorted by `id` (shuffle rows, whose `fields` is the tagged
 * JSON of {@link encodeFields}, or records still in memory, whose `fields` is the object): the first
 * record of each id to the main part, the others to the dups part (none when `dedup_mode` is `none`),
 * both parquet (zstd) and sorted by `id`.
 */
export async function writeNormalizedShard(
  records: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>,
  args: Pick<NormalizeReduceArgs, 'main_url' | 'dups_url' | 'columns' | 'dedup_mode' | 'row_group_bytes'>,
): Promise<ShardCounters> {
  const options = { columns: args.columns, rowGroupBytes: args.row_group_bytes };
  await using main = await createParquetPartWriter(args.main_url, options);
  await using dups = await createParquetPartWriter(args.dups_url, options);
  let prev: string | null = null;
  let unique = 0;
  let duplicate = 0;
  const exact = args.dedup_mode === 'exact';
  for await (const r of records) {
    const id = r['id'] as string;
    const raw = r['fields'];
    const record = { id, text: r['text'], ...(typeof raw === 'string' ? decodeFields(raw) : (raw as Record<string, unknown>)) };
    if (exact && id === prev) {
      duplicate += 1;
      await dups.write(record);
    } else {
      unique += 1;
      await main.write(record);
    }
    prev = id;
  }
  await main.close();
  await dups.close();
  return { [NORMALIZE_COUNTERS.uniqueRecordsOut]: unique, [NORMALIZE_COUNTERS.duplicateRecordsOut]: duplicate };
}

/**
 * A normalize reduce task: merges its shard's sorted runs by `id` and writes the shard's main part
 * (first record of each id) and dups part (the others; none when `dedup_mode` is `none`), both
 * parquet (zstd) and sorted by `id`. The `normalizeReduceTask` export.
 */
export const normalizeReduceTask = dataflowTask<NormalizeReduceArgs, NormalizeReduceResult>(async (args, signal) => {
  const counters = await writeNormalizedShard(readShufflePartition({ files: args.files, sortKey: 'id', signal }), args);
  return { counters };
});
