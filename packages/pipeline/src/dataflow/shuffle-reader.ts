import { readParquetRecords } from '../formats/parquet-records.js';
import { mergeSorted } from './sorted-merge.js';

/** Options of {@link readShufflePartition}. */
export interface ReadShuffleOptions {
  /** The partition's run files, from `shuffleFilesOf(mapOutputs, p)`. */
  files: readonly string[];
  /** Merge the (sorted) runs by this column; without it runs are read one after another. */
  sortKey?: string;
  /**
   * Records of the partition still in memory (a task that maps and reduces in one process:
   * `ShuffleWriter.closeInMemory`), sorted by `sortKey`; they come after the files (they were added last).
   */
  buffered?: readonly Record<string, unknown>[];
  signal?: AbortSignal;
}

/**
 * The reduce side of a shuffle: streams one partition's records, merged in `sortKey` order when given
 * (each run holds one row group at a time in memory), else concatenated in file order; records still
 * in memory (`buffered`) come last.
 */
export async function* readShufflePartition(options: ReadShuffleOptions): AsyncGenerator<Record<string, unknown>> {
  const opts = options.signal === undefined ? {} : { signal: options.signal };
  const buffered = options.buffered ?? [];
  if (options.sortKey === undefined) {
    for (const f of options.files) yield* readParquetRecords(f, opts);
    yield* buffered;
    return;
  }
  if (options.files.length === 0) {
    yield* buffered;
    return;
  }
  const sources: AsyncIterable<Record<string, unknown>>[] = options.files.map((f) => readParquetRecords(f, opts));
  if (buffered.length > 0) sources.push(fromArray(buffered));
  yield* mergeSorted(sources, options.sortKey);
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
