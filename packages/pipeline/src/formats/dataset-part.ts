/** How the records of a part are stored. */
export type PartFormat = 'parquet' | 'jsonl';

/** Compression of a JSON-lines file, from its name. */
export type JsonlCompression = 'none' | 'gzip' | 'zstd';

/**
 * One unit of parallel reading: a parquet row group, or a whole JSON-lines file (plain, `.gz` or
 * `.zst`). JSON so it can travel to a Fray job as part of a task's arguments.
 */
export interface DatasetPart {
  [key: string]: string | number | null;
  /** The file, a local path or any storage URL. */
  url: string;
  format: PartFormat;
  /** The row group of a parquet part; `null` for a JSON-lines file. */
  rowGroup: number | null;
  /** Rows in the part when known (parquet metadata), else `null`. */
  rows: number | null;
  /** Compressed bytes of the part (the row group's, or the file's size). */
  bytes: number;
}

/** A short stable name of a part for logs and task names: `<file basename>` or `<file basename>#rg<N>`. */
export function partLabel(part: DatasetPart): string {
  const base = part.url.slice(part.url.lastIndexOf('/') + 1);
  return part.rowGroup === null ? base : `${base}#rg${part.rowGroup}`;
}
