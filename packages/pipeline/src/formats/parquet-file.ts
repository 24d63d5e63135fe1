import { open } from 'node:fs/promises';
import { localPathOf, schemeOf, stat } from '@marin/rigging';
import { parquetMetadataAsync, parquetSchema } from 'hyparquet';
import type { AsyncBuffer, FileMetaData, SchemaTree } from 'hyparquet';
import { readRange } from '../cache/read-range.js';
import { PipelineError } from '../errors.js';

/** One row group of a parquet file: the unit of parallel reading. */
export interface ParquetRowGroupInfo {
  index: number;
  /** Index of the group's first row in the file. */
  rowStart: number;
  numRows: number;
  /** Compressed bytes of the group's column chunks. */
  compressedBytes: number;
}

/** An opened parquet file: its footer, parsed once, and a byte source that reads ranges on demand. */
export interface ParquetFile extends AsyncDisposable {
  url: string;
  byteLength: number;
  numRows: number;
  rowGroups: ParquetRowGroupInfo[];
  /** Top-level column names in schema order (nested columns appear once, by their top-level name). */
  columns: string[];
  /** The top-level schema nodes, for writers that pass columns through with their exact types. */
  schema: SchemaTree;
  metadata: FileMetaData;
  /** Reads bytes of the file; shared by every row group read. */
  buffer: AsyncBuffer;
  /**
   * Bytes `[start, end)` of the file, read into `into` when it is large enough (a view of it is returned),
   * else into a new buffer: for readers that reuse one buffer for every column chunk.
   */
  readBytes(start: number, end: number, into?: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** A byte source over any storage URL: local files through one file handle, others through ranged reads. */
type FileBytes = AsyncBuffer & { close(): Promise<void>; readBytes(start: number, end: number, into?: Uint8Array): Promise<Uint8Array> };

async function openAsyncBuffer(url: string): Promise<FileBytes> {
  const scheme = schemeOf(url);
  if (scheme === null || scheme === 'file') {
    const handle = await open(localPathOf(url), 'r');
    const { size } = await handle.stat();
    const readBytes = async (start: number, end: number, into?: Uint8Array): Promise<Uint8Array> => {
      const length = Math.max(0, Math.min(end, size) - start);
      const out = into !== undefined && into.byteLength >= length ? into.subarray(0, length) : new Uint8Array(length);
      let pos = 0;
      while (pos < out.byteLength) {
        const { bytesRead } = await handle.read(out, pos, out.byteLength - pos, start + pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
      }
      return out.subarray(0, pos);
    };
    return {
      byteLength: size,
      async slice(start: number, end?: number): Promise<ArrayBuffer> {
        const out = await readBytes(start, end ?? size);
        return out.buffer.byteLength === out.byteLength ? (out.buffer as ArrayBuffer) : (out.slice().buffer as ArrayBuffer);
      },
      readBytes,
      close: () => handle.close(),
    };
  }
  const { size } = await stat(url);
  return {
    byteLength: size,
    readBytes: (start: number, end: number): Promise<Uint8Array> => readRange(url, start, Math.min(end, size)),
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const bytes = await readRange(url, start, Math.min(end ?? size, size));
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
    close: async () => undefined,
  };
}

/**
 * Opens a parquet file and parses its footer (reading only the footer's bytes).
 *
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND when the file does not exist;
 *   PIPELINE_INPUT_INVALID naming the file for a bad magic number or a truncated or corrupt footer
 */
export async function openParquetFile(url: string): Promise<ParquetFile> {
  let buffer: FileBytes;
  try {
    buffer = await openAsyncBuffer(url);
  } catch (cause) {
    throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `cannot open ${url}`, { cause, details: { path: url } });
  }
  let metadata: FileMetaData;
  try {
    if (buffer.byteLength < 12) throw new Error(`${buffer.byteLength} bytes is too short for parquet`);
    metadata = await parquetMetadataAsync(buffer);
  } catch (cause) {
    await buffer.close();
    throw new PipelineError(
      'PIPELINE_INPUT_INVALID',
      `${url} is not a readable parquet file (bad magic number, or a truncated or corrupt footer); re-download or regenerate it`,
      { cause, details: { path: url } },
    );
  }
  const rowGroups: ParquetRowGroupInfo[] = [];
  let rowStart = 0;
  metadata.row_groups.forEach((rg, index) => {
    const numRows = Number(rg.num_rows);
    const compressedBytes = rg.columns.reduce((n, c) => n + Number(c.meta_data?.total_compressed_size ?? 0n), 0);
    rowGroups.push({ index, rowStart, numRows, compressedBytes });
    rowStart += numRows;
  });
  const schema = parquetSchema(metadata);
  return {
    url,
    byteLength: buffer.byteLength,
    numRows: Number(metadata.num_rows),
    rowGroups,
    columns: schema.children.map((c) => c.element.name),
    schema,
    metadata,
    buffer,
    readBytes: (start, end, into) => buffer.readBytes(start, end, into),
    close: () => buffer.close(),
    [Symbol.asyncDispose]: () => buffer.close(),
  };
}

/**
 * The row groups a read covers: all of them, or only `rowGroup`.
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND when the file has no row group `rowGroup`
 */
export function rowGroupsToRead(file: ParquetFile, rowGroup: number | null | undefined): ParquetRowGroupInfo[] {
  if (rowGroup === undefined || rowGroup === null) return file.rowGroups;
  const group = file.rowGroups[rowGroup];
  if (group === undefined) {
    throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `${file.url} has no row group ${String(rowGroup)} (it has ${file.rowGroups.length})`, {
      details: { path: file.url, rowGroup },
    });
  }
  return [group];
}
