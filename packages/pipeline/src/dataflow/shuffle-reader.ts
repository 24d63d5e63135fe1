import { readParquetRecords } from '../formats/parquet-records.js';
import { mergeSorted } from './sorted-merge.js';

/** Options of {@link readShufflePartition}. */
export interface ReadShuffleOptions {
  /** The partition's run files, from `shuffleFilesOf(mapOutputs, p)`. */
  files: readonly string[];
  /** Merge the (sorted) runs by this column; without it runs are read one after another. */
  sortKey?: string;
  signal?: AbortSignal;
}

/**
 * The reduce side of a shuffle: streams one partition's records, merged in `sortKey` order when given
 * (each run holds one row group at a time in memory), else concatenated in file order.
 */
export async function* readShufflePartition(options: ReadShuffleOptions): AsyncGenerator<Record<string, unknown>> {
  const opts = options.signal === undefined ? {} : { signal: options.signal };
  if (options.sortKey === undefined) {
    for (const f of options.files) yield* readParquetRecords(f, opts);
    return;
  }
  yield* mergeSorted(options.files.map((f) => readParquetRecords(f, opts)), options.sortKey);
}
