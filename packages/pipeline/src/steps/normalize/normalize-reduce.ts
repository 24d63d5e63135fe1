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

/**
 * A normalize reduce task: merges its shard's sorted runs by `id` and writes the shard's main part
 * (first record of each id) and dups part (the others; none when `dedup_mode` is `none`), both
 * parquet (zstd) and sorted by `id`. The `normalizeReduceTask` export.
 */
export const normalizeReduceTask = dataflowTask<NormalizeReduceArgs, NormalizeReduceResult>(async (args, signal) => {
  const options = { columns: args.columns, rowGroupBytes: args.row_group_bytes };
  await using main = await createParquetPartWriter(args.main_url, options);
  await using dups = await createParquetPartWriter(args.dups_url, options);
  let prev: string | null = null;
  let unique = 0;
  let duplicate = 0;
  for await (const r of readShufflePartition({ files: args.files, sortKey: 'id', signal })) {
    const id = r['id'] as string;
    const record = { id, text: r['text'], ...decodeFields(r['fields'] as string) };
    if (args.dedup_mode === 'exact' && id === prev) {
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
  return { counters: { [NORMALIZE_COUNTERS.uniqueRecordsOut]: unique, [NORMALIZE_COUNTERS.duplicateRecordsOut]: duplicate } };
});
