import { prefixJoin } from '@marin/rigging';
import { writeParquetPart } from '../formats/parquet-part-writer.js';
import type { ParquetColumnSpec } from '../formats/parquet-schema.js';
import { compareKeys } from './sorted-merge.js';

/** Options of {@link createShuffleWriter}. */
export interface ShuffleWriterOptions {
  /** The shuffle's directory; files go to `<dir>/part-{p:05d}/<mapTask>-run-{r:04d}.parquet`. */
  dir: string;
  /** The map task's name, unique in the shuffle (a rerun of the task overwrites its own files). */
  mapTask: string;
  numPartitions: number;
  /** The records' columns (every record is written with exactly these). */
  columns: readonly ParquetColumnSpec[];
  /** When set, each run file is sorted by this column (strings compare by code unit), so reducers can merge. */
  sortKey?: string;
  /**
   * Buffered bytes (UTF-8-ish: string lengths) across partitions before the largest partitions are
   * spilled as run files; bounds the map task's memory.
   * @default 256 MiB
   */
  spillBytes?: number;
}

/** What a map task wrote: per partition, its run files in write order. JSON, so it goes in the task's marker. */
export interface ShuffleMapOutput {
  [key: string]: string[][] | number;
  /** `files[p]` are the run files of partition `p`. */
  files: string[][];
  records: number;
}

/** The map side of a shuffle: route records to partitions; sorted runs are written as parquet files. */
export interface ShuffleWriter {
  add(partition: number, record: Record<string, unknown>): Promise<void>;
  /** Writes what is still buffered and returns the files; put the result in the map task's result. */
  close(): Promise<ShuffleMapOutput>;
}

function recordBytes(r: Record<string, unknown>): number {
  let n = 16;
  for (const v of Object.values(r)) n += typeof v === 'string' ? v.length : 8;
  return n;
}

/**
 * Opens the map side of a shuffle on storage files. Records are buffered per partition; when the
 * buffer passes `spillBytes`, the largest partition is sorted (by `sortKey`) and written as one run
 * file (parquet, zstd, atomic). Only files listed in the returned output (recorded in the map task's
 * done marker) are read by reducers, so files left by a crashed attempt are never read.
 */
export function createShuffleWriter(options: ShuffleWriterOptions): ShuffleWriter {
  const spillBytes = options.spillBytes ?? 256 * 1024 * 1024;
  const buffers: Record<string, unknown>[][] = Array.from({ length: options.numPartitions }, () => []);
  const bytes = new Array<number>(options.numPartitions).fill(0);
  const files: string[][] = Array.from({ length: options.numPartitions }, () => []);
  let total = 0;
  let records = 0;
  const key = options.sortKey;

  const spill = async (p: number): Promise<void> => {
    const rows = buffers[p] ?? [];
    if (rows.length === 0) return;
    if (key !== undefined) rows.sort((a, b) => compareKeys(a[key], b[key]));
    const run = (files[p] ?? []).length;
    const url = prefixJoin(options.dir, `part-${String(p).padStart(5, '0')}/${options.mapTask}-run-${String(run).padStart(4, '0')}.parquet`);
    await writeParquetPart(url, rows, { columns: options.columns });
    files[p]?.push(url);
    total -= bytes[p] ?? 0;
    buffers[p] = [];
    bytes[p] = 0;
  };

  return {
    async add(partition, record) {
      if (!Number.isInteger(partition) || partition < 0 || partition >= options.numPartitions) {
        throw new RangeError(`partition ${partition} is outside [0, ${options.numPartitions})`);
      }
      buffers[partition]?.push(record);
      const b = recordBytes(record);
      bytes[partition] = (bytes[partition] ?? 0) + b;
      total += b;
      records += 1;
      while (total > spillBytes) {
        let largest = 0;
        for (let p = 1; p < bytes.length; p++) if ((bytes[p] ?? 0) > (bytes[largest] ?? 0)) largest = p;
        await spill(largest);
      }
    },
    async close() {
      for (let p = 0; p < options.numPartitions; p++) await spill(p);
      return { files, records };
    },
  };
}

/** The run files of partition `p` across every map task's output, in map-task order. */
export function shuffleFilesOf(outputs: readonly ShuffleMapOutput[], partition: number): string[] {
  return outputs.flatMap((o) => o.files[partition] ?? []);
}
