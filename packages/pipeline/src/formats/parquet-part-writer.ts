import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { createWriteStream, schemeOf } from '@marin/rigging';
import { ParquetWriter } from 'hyparquet-writer';
import type { ColumnSource } from 'hyparquet-writer';
import type { ColumnChunk, RowGroup } from 'hyparquet';
import { PipelineError } from '../errors.js';
import { emptyObjectArray } from './empty-object-array.js';
import { parquetSchemaOf } from './parquet-schema.js';
import { dictionaryRejected, writePlainStringChunk } from './plain-string-column.js';
import type { StringValues } from './plain-string-column.js';
import type { ParquetColumnSpec } from './parquet-schema.js';
import { SegmentedByteWriter } from './segmented-byte-writer.js';
import { createZstdPageCompressor } from './zstd-binding.js';
import type { ZstdPageCompressor } from './zstd-binding.js';

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
  // Every rigging filesystem's write stream is atomic: the object appears at `url` only when the stream
  // finishes, and a destroyed stream leaves nothing behind.
  const stream: Writable = await createWriteStream(url);
  return new PartWriter(url, options, stream);
}

type ColumnConverter = ReturnType<typeof parquetSchemaOf>['converters'][number];
type ColumnEncoder = ReturnType<typeof parquetSchemaOf>['encoders'][number];

/**
 * The writer behind {@link createParquetPartWriter}. A class, not closures made per writer: a process
 * writes many parts (every shuffle run, every output shard), and methods on a prototype share one
 * compiled code object, where a closure's optimized code is dropped with its writer and compiled again
 * for the next one.
 */
class PartWriter implements ParquetPartWriter {
  private readonly columns: readonly ParquetColumnSpec[];
  private readonly names: readonly string[];
  private readonly converters: readonly ColumnConverter[];
  private readonly encoders: readonly ColumnEncoder[];
  /** Per column: written by writePlainStringChunk always, unless hyparquet-writer would use a dictionary, or never. */
  private readonly strings: readonly ('no' | 'always' | 'unless-dictionary')[];
  private readonly rowGroupBytes: number;
  private readonly rowGroupRows: number;
  private readonly zstd: ZstdPageCompressor | null;
  private readonly codecName: 'ZSTD' | 'UNCOMPRESSED';
  private readonly bytes: SegmentedByteWriter;
  private readonly writer: ParquetWriter;
  private readonly stream: Writable;
  private readonly onWritten: ((buffer: ArrayBufferLike) => void) | null;
  private streamError: unknown = null;
  private buffers: unknown[][];
  private buffered = 0;
  private bufferedBytes = 0;
  private rowCount = 0;
  private rowGroupCount = 0;
  private state: 'open' | 'closing' | 'closed' | 'aborted' = 'open';

  constructor(
    readonly url: string,
    options: ParquetPartWriterOptions,
    stream: Writable,
  ) {
    const columns = [...options.columns];
    const { schema, encoders, converters } = parquetSchemaOf(columns);
    this.columns = columns;
    this.names = columns.map((c) => c.name);
    this.converters = converters;
    this.encoders = encoders;
    this.rowGroupBytes = options.rowGroupBytes ?? DEFAULT_ROW_GROUP_BYTES;
    this.rowGroupRows = options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
    this.zstd = options.codec === 'uncompressed' ? null : createZstdPageCompressor(options.zstdLevel ?? 1, 'writing zstd parquet');
    this.codecName = options.codec === 'uncompressed' ? 'UNCOMPRESSED' : 'ZSTD';
    this.stream = stream;
    stream.on('error', (e) => {
      this.streamError = e;
    });
    const recycles = schemeOf(url) === null || schemeOf(url) === 'file';
    this.bytes = new SegmentedByteWriter(recycles);
    const bytes = this.bytes;
    this.onWritten = recycles ? (buffer) => bytes.released(buffer) : null;
    const zstd = this.zstd;
    // hyparquet-writer keeps what its compressor returns, so its columns get a copy; writePlainStringChunk copies the transient frame itself
    const compress = zstd === null ? null : (input: Uint8Array): Uint8Array => new Uint8Array(zstd.compressTransient(input));
    // Flat UTF-8 columns are written by writePlainStringChunk: those marked plain (ids, texts) always, the
    // others (REQUIRED or OPTIONAL) in each row group where hyparquet-writer's dictionary sampling would
    // reject a dictionary anyway; everything else (numbers, JSON, nested, dictionary-worthy strings) by hyparquet-writer.
    this.strings = columns.map((c) => (c.type !== 'string' ? 'no' : c.plain === true ? 'always' : 'unless-dictionary'));
    this.writer = new ParquetWriter({
      writer: bytes,
      // hyparquet-writer pins its own hyparquet; the schema elements are the same shape across both
      schema: schema as ConstructorParameters<typeof ParquetWriter>[0]['schema'],
      codec: this.codecName,
      compressors: compress === null ? {} : { ZSTD: compress },
      statistics: false,
      createdBy: 'marin pipeline (hyparquet-writer)',
      ...(options.metadata === undefined ? {} : { kvMetadata: Object.entries(options.metadata).map(([key, value]) => ({ key, value })) }),
    });
    this.buffers = columns.map(() => emptyObjectArray<unknown>());
  }

  get rows(): number {
    return this.rowCount;
  }

  write(record: Record<string, unknown>): Promise<void> | undefined {
    if (this.state !== 'open') return Promise.reject(new Error(`parquet writer for ${this.url} is ${this.state}`));
    const { names, converters, buffers } = this;
    let bytes = 0;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const v = (converters[i] as ColumnConverter)(record[name], name, this.url);
      (buffers[i] as unknown[]).push(v);
      bytes += valueBytes(v);
    }
    this.bufferedBytes += bytes;
    this.buffered += 1;
    this.rowCount += 1;
    return this.bufferedBytes >= this.rowGroupBytes || this.buffered >= this.rowGroupRows ? this.flushGroup() : undefined;
  }

  async close(): Promise<ParquetPartResult> {
    if (this.state !== 'open') throw new Error(`parquet writer for ${this.url} is ${this.state}`);
    this.state = 'closing';
    try {
      await this.flushGroup();
      this.writer.finish();
      await this.drain();
      this.stream.end();
      await once(this.stream, 'finish');
      if (this.streamError !== null) throw this.streamError;
      this.state = 'closed';
      // every write has called back: the last buffer is free too
      this.bytes.releaseLast();
      return { url: this.url, rows: this.rowCount, rowGroups: this.rowGroupCount, bytes: this.bytes.offset };
    } catch (e) {
      this.state = 'open';
      await this.abort();
      throw PipelineError.is(e) ? e : new PipelineError('PIPELINE_OUTPUT_NOT_WRITABLE', `cannot write ${this.url}`, { cause: e, details: { path: this.url } });
    }
  }

  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.stream.destroy();
    await once(this.stream, 'close').catch(() => undefined);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.abort();
  }

  private async drain(): Promise<void> {
    if (this.streamError !== null) throw this.streamError;
    const { bytes, stream, onWritten } = this;
    bytes.cutSegment();
    let ok = true;
    for (const chunk of bytes.chunks.splice(0)) ok = onWritten === null ? stream.write(chunk) : stream.write(chunk, () => onWritten(chunk.buffer));
    if (!ok) await once(stream, 'drain');
  }

  private async flushGroup(): Promise<void> {
    if (this.buffered === 0) return;
    const { columns, strings, buffers, bytes, writer, codecName } = this;
    const buffered = this.buffered;
    const groupStart = bytes.offset;
    const fastChunks = new Map<string, ColumnChunk>();
    let fastBytes = 0;
    const fast = columns.map((_, i) => strings[i] === 'always' || (strings[i] === 'unless-dictionary' && dictionaryRejected(buffers[i] as StringValues)));
    columns.forEach((c, i) => {
      if (!fast[i]) return;
      const nullable = c.type !== 'parquet' && c.nullable !== false;
      const { chunk, uncompressedBytes } = writePlainStringChunk(bytes, c.name, buffers[i] as StringValues, codecName, this.zstd, nullable);
      fastChunks.set(c.name, chunk);
      fastBytes += uncompressedBytes;
    });
    const rest = columns.flatMap((c, i) => (fast[i] ? [] : [{ name: c.name, data: buffers[i] ?? [], ...this.encoders[i] }]));
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
    this.rowGroupCount += 1;
    this.buffers = columns.map(() => emptyObjectArray<unknown>());
    this.buffered = 0;
    this.bufferedBytes = 0;
    await this.drain();
  }
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
