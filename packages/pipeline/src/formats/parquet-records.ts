import { parquetReadObjects } from 'hyparquet';
import { isUtf8 } from 'node:buffer';
import { PipelineError } from '../errors.js';
import { PAGE_DECOMPRESSORS } from './page-codecs.js';
import { openParquetFile, rowGroupsToRead } from './parquet-file.js';
import type { ParquetFile } from './parquet-file.js';

/** Options of {@link readParquetRecords}. */
export interface ReadParquetOptions {
  /** Only these top-level columns (all when omitted). */
  columns?: readonly string[];
  /** Only this row group (every group, in order, when omitted). */
  rowGroup?: number | null;
  /**
   * These top-level string columns are returned as their UTF-8 bytes (a `Uint8Array`, checked to be valid
   * UTF-8) instead of a decoded string: for a consumer that needs the bytes anyway (hashing, writing), it
   * saves decoding and encoding again. They come after the other columns in the record's key order.
   */
  utf8Columns?: readonly string[];
  /** Checked between row groups and between records. */
  signal?: AbortSignal;
}

/**
 * Streams the records of a parquet file (or of one row group) as objects keyed by top-level column:
 * strings for UTF-8 columns, `bigint` for INT64, `null` for nulls, nested columns as plain objects and
 * arrays. One row group is decoded at a time, so memory is bounded by the largest row group.
 * Every codec (snappy, gzip, brotli, zstd, lz4, lz4_raw, uncompressed), plain and dictionary encodings
 * and data pages v1 and v2 are read. Strings must be valid UTF-8.
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID naming the file (and row group) for a corrupt file or a
 *   page that cannot be decoded; PIPELINE_INPUT_NOT_FOUND for a missing file or column
 */
export async function* readParquetRecords(
  source: string | ParquetFile,
  options: ReadParquetOptions = {},
): AsyncGenerator<Record<string, unknown>> {
  for await (const rows of readParquetRowGroups(source, options)) {
    for (let i = 0; i < rows.length; i++) {
      if ((i & 1023) === 0) options.signal?.throwIfAborted();
      yield rows[i] as Record<string, unknown>;
      rows[i] = EMPTY;
    }
  }
}

/**
 * {@link readParquetRecords} one row group at a time: yields the records of each row group as one array
 * (the caller owns it), for consumers that loop over records synchronously (one await per row group
 * instead of one per record). Same options, order, values and errors.
 *
 * @throws {PipelineError} as {@link readParquetRecords}
 */
export async function* readParquetRowGroups(
  source: string | ParquetFile,
  options: ReadParquetOptions = {},
): AsyncGenerator<Record<string, unknown>[]> {
  const file = typeof source === 'string' ? await openParquetFile(source) : source;
  try {
    const columns = options.columns === undefined ? undefined : [...options.columns];
    const missing = columns?.filter((c) => !file.columns.includes(c)) ?? [];
    if (missing.length > 0) {
      throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `${file.url} has no column ${JSON.stringify(missing[0])}; its columns are ${file.columns.join(', ')}`, {
        details: { path: file.url, column: missing[0] ?? null },
      });
    }
    for (const group of rowGroupsToRead(file, options.rowGroup)) {
      options.signal?.throwIfAborted();
      let rows: Record<string, unknown>[];
      try {
        const read = { file: file.buffer, metadata: file.metadata, rowStart: group.rowStart, rowEnd: group.rowStart + group.numRows, compressors };
        const wanted = columns ?? file.columns;
        const asBytes = options.utf8Columns?.filter((c) => wanted.includes(c)) ?? [];
        if (asBytes.length === 0) {
          rows = await parquetReadObjects({ ...read, parsers: STRICT_UTF8, ...(columns === undefined ? {} : { columns }) });
        } else {
          // hyparquet's parsers apply to every column of a read, so the byte columns are read on their own
          const rest = wanted.filter((c) => !asBytes.includes(c));
          const bytesRows = await parquetReadObjects({ ...read, parsers: STRICT_UTF8_BYTES, columns: asBytes });
          rows = rest.length === 0 ? bytesRows : await parquetReadObjects({ ...read, parsers: STRICT_UTF8, columns: rest });
          if (rest.length > 0) {
            for (let i = 0; i < rows.length; i++) {
              const row = rows[i] as Record<string, unknown>;
              const from = bytesRows[i] as Record<string, unknown>;
              for (const c of asBytes) row[c] = from[c];
            }
          }
        }
      } catch (cause) {
        if (cause instanceof InvalidUtf8Error) {
          const column = await invalidUtf8Column(file, group, columns ?? file.columns);
          throw new PipelineError(
            'PIPELINE_INPUT_INVALID',
            `column ${JSON.stringify(column)} of ${file.url} (row group ${group.index}) holds a string that is not valid UTF-8; re-encode the file as UTF-8 or drop it`,
            { cause, details: { path: file.url, rowGroup: group.index, column } },
          );
        }
        throw new PipelineError('PIPELINE_INPUT_INVALID', `cannot decode row group ${group.index} of ${file.url}: the file is corrupt or truncated`, {
          cause,
          details: { path: file.url, rowGroup: group.index },
        });
      }
      yield rows;
    }
  } finally {
    if (typeof source === 'string') await file.close();
  }
}

const compressors = PAGE_DECOMPRESSORS;

// Strings that are not valid UTF-8 fail the read instead of silently becoming U+FFFD.
// (isUtf8 + Buffer#toString measured faster than a fatal TextDecoder on web-sized documents.)
const STRICT_UTF8 = {
  stringFromBytes: (bytes: Uint8Array): string => {
    if (!isUtf8(bytes)) throw new InvalidUtf8Error();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  },
};

// ... or, for `utf8Columns`, the checked bytes themselves (typed as hyparquet's parser, which JS does not enforce).
const STRICT_UTF8_BYTES = {
  stringFromBytes: (bytes: Uint8Array): string => {
    if (!isUtf8(bytes)) throw new InvalidUtf8Error();
    return bytes as unknown as string;
  },
};

class InvalidUtf8Error extends Error {}

/** The first column of a row group holding invalid UTF-8, found by decoding the columns one at a time (only on that error path). */
async function invalidUtf8Column(file: ParquetFile, group: ParquetFile['rowGroups'][number], columns: readonly string[]): Promise<string | null> {
  for (const column of columns) {
    try {
      await parquetReadObjects({ file: file.buffer, metadata: file.metadata, rowStart: group.rowStart, rowEnd: group.rowStart + group.numRows, compressors, parsers: STRICT_UTF8, columns: [column] });
    } catch (e) {
      if (e instanceof InvalidUtf8Error) return column;
    }
  }
  return null;
}

// Rows already yielded are dropped from the group's array so the consumer's memory is not held twice.
const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
