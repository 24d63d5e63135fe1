import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { createWriteStream, schemeOf } from '@marin/rigging';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ColumnSource } from 'hyparquet-writer';
import type { ColumnChunk, RowGroup } from 'hyparquet';
import { PipelineError } from '../errors.js';
import { parquetSchemaOf } from './parquet-schema.js';
import { dictionaryRejected, writePlainStringChunk } from './plain-string-column.js';
import type { ChunkSink, StringValues } from './plain-string-column.js';
import type { ParquetColumnSpec } from './parquet-schema.js';
import { createZstdPageCompressor } from './zstd-binding.js';

/** Options of {@link createParquetPartWriter}. */
export interface ParquetPartWriterOptions {
  /** The columns, in order; every record is written with exactly these (a missing field is `null`). */
  columns: readonly ParquetColumnSpec[];
  /**
   * A row group is cut once its buffered values reach this many bytes (UTF-8 length of strings, 8 per number).
   * @default 64 MiB
   */
  rowGroupBytes?: number;
  /** ... or this many rows. @default 1_000_000 */
  rowGroupRows?: number;
  /** Zstandard level; 1 is pyarrow's default and several times cheaper than 3 for text. @default 1 */
  zstdLevel?: number;
  /** Page compression: zstd, or none for scratch files read back once on the same machine. @default "zstd" */
  codec?: 'zstd' | 'uncompressed';
  /** Key-value metadata written into the footer (e.g. the producing stage's counters). */
  metadata?: Record<string, string>;
}

/** What a finished part holds. */
export interface ParquetPartResult {
  url: string;
  rows: number;
  rowGroups: number;
  bytes: number;
}

/** A parquet (zstd) file being written; invisible at its URL until {@link ParquetPartWriter.close} succeeds. */
export interface ParquetPartWriter extends AsyncDisposable {
  readonly url: string;
  /** Rows accepted so far. */
  readonly rows: number;
  /**
   * Buffers one record. Returns a promise only when the record filled a row group, which is then being
   * written out (await it before writing more); otherwise `undefined`, so a caller writing many records
   * pays for no promise per record. Awaiting the result is always correct.
   */
  write(record: Record<string, unknown>): Promise<void> | undefined;
  /** Writes the last row group and the footer and finishes the file, which then appears at `url`. */
  close(): Promise<ParquetPartResult>;
  /** Drops what was written; nothing appears at `url`. Does nothing once `close()` has started. */
  abort(): Promise<void>;
}

const DEFAULT_ROW_GROUP_BYTES = 64 * 1024 * 1024;
const DEFAULT_ROW_GROUP_ROWS = 1_000_000;
const CHUNK_BYTES = 1 << 20;

// Output buffers of CHUNK_BYTES that every stream has finished writing, reused by the next writer
// buffer instead of a fresh allocation (a part's output is otherwise allocated once more, and fresh
// external memory drives V8's garbage collections). At most POOL_CHUNKS are kept: about one row group's
// output (a 64 MiB group of text is ~25 MiB of zstd), which is laid out in full before any of it is
// written, so the next group takes the last one's buffers (with 8 kept, two thirds of every group's
// output was fresh memory, faulted in page by page).
const POOL_CHUNKS = 32;
const chunkPool: ArrayBuffer[] = [];

function takeChunk(): ArrayBuffer {
  return chunkPool.pop() ?? uninitialized(CHUNK_BYTES);
}

/** A buffer of its own, not zero-filled (every byte of it is written before it is read). */
function uninitialized(size: number): ArrayBuffer {
  return Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer;
}

function recycleChunk(buffer: ArrayBuffer): void {
  if (buffer.byteLength === CHUNK_BYTES && chunkPool.length < POOL_CHUNKS) chunkPool.push(buffer);
}

function valueBytes(v: unknown): number {
  if (typeof v === 'string') return v.length + 4;
  if (v === null || v === undefined) return 1;
  if (v instanceof Uint8Array) return v.byteLength + 4;
  if (typeof v === 'object') return 64;
  return 8;
}

/**
 * Opens a parquet part writer: records are buffered into column arrays, cut into row groups of about
 * `rowGroupBytes`, compressed with Zstandard and streamed to `url` through rigging's atomic write stream,
 * so the file becomes visible only when `close()` finishes it. Memory is bounded by one row group. `await using` aborts a writer that was
 * not closed, so a failed stage leaves nothing partial visible.
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID when a value does not fit its column's type (naming the column)
 */
export async function createParquetPartWriter(url: string, options: ParquetPartWriterOptions): Promise<ParquetPartWriter> {
  const columns = [...options.columns];
  const { schema, encoders, converters } = parquetSchemaOf(columns);
  const rowGroupBytes = options.rowGroupBytes ?? DEFAULT_ROW_GROUP_BYTES;
  const rowGroupRows = options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
  const level = options.zstdLevel ?? 1;
  const zstd = options.codec === 'uncompressed' ? null : createZstdPageCompressor(level, 'writing zstd parquet');
  // Every rigging filesystem's write stream is atomic: the object appears at `url` only when the stream
  // finishes, and a destroyed stream leaves nothing behind.
  const stream: Writable = await createWriteStream(url);
  let streamError: unknown = null;
  stream.on('error', (e) => {
    streamError = e;
  });
  const bytes = new ByteWriter(0);
  bytes.buffer = takeChunk();
  bytes.view = new DataView(bytes.buffer);
  // Written bytes are set aside as views (never overwritten) instead of growing one buffer to the row
  // group's size (hyparquet-writer's ByteWriter doubles and copies), and streamed out after each row group.
  const chunks: Uint8Array[] = [];
  let segmentStart = 0;
  const cutSegment = (): void => {
    if (bytes.index > segmentStart) {
      chunks.push(new Uint8Array(bytes.buffer, segmentStart, bytes.index - segmentStart));
      if (recycles) inFlight.set(bytes.buffer, (inFlight.get(bytes.buffer) ?? 0) + 1);
    }
    segmentStart = bytes.index;
  };
  // A full buffer goes back to the shared pool once every segment cut from it has been written: only for
  // local files, whose stream calls back once the bytes are in the file (an object store's upload stream
  // may call back while it still holds the chunk).
  const recycles = schemeOf(url) === null || schemeOf(url) === 'file';
  const inFlight = new Map<ArrayBuffer, number>();
  const retired = new Set<ArrayBuffer>();
  const released = (buffer: ArrayBufferLike): void => {
    const n = (inFlight.get(buffer as ArrayBuffer) ?? 0) - 1;
    if (n > 0) {
      inFlight.set(buffer as ArrayBuffer, n);
      return;
    }
    inFlight.delete(buffer as ArrayBuffer);
    if (retired.delete(buffer as ArrayBuffer)) recycleChunk(buffer as ArrayBuffer);
  };
  bytes.ensure = (size: number): void => {
    if (bytes.index + size <= bytes.buffer.byteLength) return;
    cutSegment();
    if (inFlight.has(bytes.buffer)) retired.add(bytes.buffer);
    else if (recycles) recycleChunk(bytes.buffer);
    bytes.buffer = size <= CHUNK_BYTES ? takeChunk() : uninitialized(size);
    bytes.view = new DataView(bytes.buffer);
    bytes.index = 0;
    segmentStart = 0;
  };
  const sink: ChunkSink = {
    bytes,
    scratch: null,
    appendOwned(data) {
      cutSegment();
      chunks.push(data);
      bytes.offset += data.byteLength;
    },
  };
  const codecName = options.codec === 'uncompressed' ? 'UNCOMPRESSED' : 'ZSTD';
  // hyparquet-writer keeps what its compressor returns, so its columns get a copy; writePlainStringChunk copies the transient frame itself
  const compress = zstd === null ? null : (input: Uint8Array): Uint8Array => new Uint8Array(zstd.compressTransient(input));
  // Flat UTF-8 columns are written by writePlainStringChunk: those marked plain (ids, texts) always, the
  // others (REQUIRED or OPTIONAL) in each row group where hyparquet-writer's dictionary sampling would
  // reject a dictionary anyway; everything else (numbers, JSON, nested, dictionary-worthy strings) by hyparquet-writer.
  const strings = columns.map((c) => (c.type !== 'string' ? 'no' : c.plain === true ? 'always' : 'unless-dictionary'));
  const writer = new ParquetWriter({
    writer: bytes,
    // hyparquet-writer pins its own hyparquet; the schema elements are the same shape across both
    schema: schema as ConstructorParameters<typeof ParquetWriter>[0]['schema'],
    codec: codecName,
    compressors: compress === null ? {} : { ZSTD: compress },
    statistics: false,
    createdBy: 'marin pipeline (hyparquet-writer)',
    ...(options.metadata === undefined ? {} : { kvMetadata: Object.entries(options.metadata).map(([key, value]) => ({ key, value })) }),
  });
  let buffers: unknown[][] = columns.map(() => []);
  let buffered = 0;
  let bufferedBytes = 0;
  let rows = 0;
  let rowGroupCount = 0;
  let state: 'open' | 'closing' | 'closed' | 'aborted' = 'open';

  const drain = async (): Promise<void> => {
    if (streamError !== null) throw streamError;
    cutSegment();
    let ok = true;
    for (const chunk of chunks.splice(0)) ok = recycles ? stream.write(chunk, () => released(chunk.buffer)) : stream.write(chunk);
    if (!ok) await once(stream, 'drain');
  };
  const flushGroup = async (): Promise<void> => {
    if (buffered === 0) return;
    const groupStart = bytes.offset;
    const fastChunks = new Map<string, ColumnChunk>();
    let fastBytes = 0;
    const fast = columns.map((_, i) => strings[i] === 'always' || (strings[i] === 'unless-dictionary' && dictionaryRejected(buffers[i] as StringValues)));
    columns.forEach((c, i) => {
      if (!fast[i]) return;
      const nullable = c.type !== 'parquet' && c.nullable !== false;
      const { chunk, uncompressedBytes } = writePlainStringChunk(sink, c.name, buffers[i] as StringValues, codecName, zstd, nullable);
      fastChunks.set(c.name, chunk);
      fastBytes += uncompressedBytes;
    });
    const rest = columns.flatMap((c, i) => (fast[i] ? [] : [{ name: c.name, data: buffers[i] ?? [], ...encoders[i] }]));
    const groups = (writer as unknown as { row_groups: RowGroup[]; num_rows: bigint }).row_groups;
    if (rest.length > 0) {
      await writer.write({ columnData: rest as ColumnSource[], rowGroupSize: buffered });
    } else {
      (writer as unknown as { num_rows: bigint }).num_rows += BigInt(buffered);
      groups.push({ columns: [], total_byte_size: 0n, num_rows: BigInt(buffered) });
    }
    if (fastChunks.size > 0) {
      // the group's chunks in schema order (a passed-through nested column has one chunk per leaf)
      const group = groups.at(-1) as RowGroup;
      const written = group.columns;
      group.columns = columns.flatMap((c) => fastChunks.get(c.name) ?? written.filter((w) => w.meta_data?.path_in_schema[0] === c.name));
      group.total_byte_size += BigInt(fastBytes);
      group.total_compressed_size = BigInt(bytes.offset - groupStart);
    }
    rowGroupCount += 1;
    buffers = columns.map(() => []);
    buffered = 0;
    bufferedBytes = 0;
    await drain();
  };
  const abort = async (): Promise<void> => {
    if (state !== 'open') return;
    state = 'aborted';
    stream.destroy();
    await once(stream, 'close').catch(() => undefined);
  };

  return {
    url,
    get rows() {
      return rows;
    },
    write(record) {
      if (state !== 'open') return Promise.reject(new Error(`parquet writer for ${url} is ${state}`));
      for (let i = 0; i < columns.length; i++) {
        const name = (columns[i] as ParquetColumnSpec).name;
        const v = (converters[i] as (typeof converters)[number])(record[name], name, url);
        (buffers[i] as unknown[]).push(v);
        bufferedBytes += valueBytes(v);
      }
      buffered += 1;
      rows += 1;
      return bufferedBytes >= rowGroupBytes || buffered >= rowGroupRows ? flushGroup() : undefined;
    },
    async close() {
      if (state !== 'open') throw new Error(`parquet writer for ${url} is ${state}`);
      state = 'closing';
      try {
        await flushGroup();
        writer.finish();
        await drain();
        stream.end();
        await once(stream, 'finish');
        if (streamError !== null) throw streamError;
        state = 'closed';
        // every write has called back: the last buffer is free too
        if (recycles && inFlight.size === 0) recycleChunk(bytes.buffer);
        return { url, rows, rowGroups: rowGroupCount, bytes: bytes.offset };
      } catch (e) {
        state = 'open';
        await abort();
        throw PipelineError.is(e) ? e : new PipelineError('PIPELINE_OUTPUT_NOT_WRITABLE', `cannot write ${url}`, { cause: e, details: { path: url } });
      }
    },
    abort,
    [Symbol.asyncDispose]: abort,
  };
}

/**
 * Writes `records` into one parquet (zstd) part at `url`, atomically: the file appears complete or not at all.
 *
 * @throws {PipelineError} as {@link createParquetPartWriter}, or whatever iterating `records` throws
 */
export async function writeParquetPart(
  url: string,
  records: Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>,
  options: ParquetPartWriterOptions,
): Promise<ParquetPartResult> {
  await using w = await createParquetPartWriter(url, options);
  for await (const r of records) await w.write(r);
  return await w.close();
}
