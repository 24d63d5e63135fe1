import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { createWriteStream } from '@marin/rigging';
import type { ColumnChunk, FileMetaData } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { PipelineError } from '../errors.js';
import { emptyObjectArray } from '../formats/empty-object-array.js';
import { parquetSchemaOf } from '../formats/parquet-schema.js';
import type { ParquetColumnSpec } from '../formats/parquet-schema.js';

/** Bytes of PLAIN values per data page, as the part writer lays out string pages. */
const PAGE_BYTES = 1 << 20;
/** Values of at least this many UTF-8 bytes go to the file from the caller's own bytes; shorter ones are copied. */
const VIEW_BYTES = 1024;
/** The staging buffer of small values, lengths and headers. */
const STAGING_BYTES = 256 * 1024;
/** Copied (staged) bytes handed to the stream at the next page boundary, so a run of short values is never copied whole. */
const FLUSH_BYTES = 8 * 1024 * 1024;

/**
 * True when {@link writePlainRun} can write rows of `columns`: every column a non-nullable string (how
 * shuffles of documents look: ids, texts, tagged JSON).
 */
export function isPlainRunSchema(columns: readonly ParquetColumnSpec[]): boolean {
  return columns.length > 0 && columns.every((c) => c.type === 'string' && c.nullable === false);
}

/**
 * Writes `rows` (in order) as one shuffle run: a parquet file of one row group whose columns (every one a
 * non-nullable string: {@link isPlainRunSchema}) are PLAIN encoded, uncompressed, in data pages v2 of
 * about 1 MiB — the layout the part writer gives a `plain` column of an uncompressed file, which
 * `readPlainRunColumn` reads back as views. Unlike the part writer, it lays out no page in memory: a long
 * value (a document's UTF-8 text) goes to the file straight from the caller's bytes (a vectored write on
 * local storage), and only lengths, headers and short values are copied into a small staging buffer. The
 * file appears at `url` only once complete (rigging's atomic write stream); on failure nothing appears.
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID when a value is not a string or UTF-8 bytes (naming the
 *   column); PIPELINE_OUTPUT_NOT_WRITABLE when the file cannot be written
 */
export async function writePlainRun(
  url: string,
  columns: readonly ParquetColumnSpec[],
  rows: readonly Record<string, unknown>[],
  toRow?: (record: Record<string, unknown>) => Record<string, unknown>,
): Promise<void> {
  const { schema } = parquetSchemaOf(columns);
  // the values column by column, checked before anything is written (each row turned into its run row once)
  const runRows = toRow === undefined ? rows : rows.map((r) => toRow(r));
  const values = columns.map((c) => columnValues(runRows, c.name, url));
  const stream: Writable = await createWriteStream(url);
  let streamError: unknown = null;
  stream.on('error', (e) => {
    streamError = e;
  });
  let finished = false;
  try {
    const out = new RunBytes(stream);
    out.u32(0x31524150); // PAR1
    const chunks: ColumnChunk[] = [];
    let groupBytes = 0;
    for (let c = 0; c < columns.length; c++) {
      const start = out.offset;
      await writeColumnPages(out, values[c] as StringColumn);
      const size = out.offset - start;
      groupBytes += size;
      chunks.push({
        meta_data: {
          type: 'BYTE_ARRAY',
          encodings: ['PLAIN'],
          path_in_schema: [(columns[c] as ParquetColumnSpec).name],
          codec: 'UNCOMPRESSED',
          num_values: BigInt(rows.length),
          total_compressed_size: BigInt(size),
          total_uncompressed_size: BigInt(size),
          data_page_offset: BigInt(start),
        },
        file_offset: BigInt(start),
      });
      await out.flush();
      if (streamError !== null) throw streamError;
    }
    const metadata: Omit<FileMetaData, 'metadata_length'> = {
      version: 2,
      created_by: 'marin pipeline (shuffle run)',
      schema,
      num_rows: BigInt(rows.length),
      row_groups: [{ columns: chunks, total_byte_size: BigInt(groupBytes), num_rows: BigInt(rows.length), file_offset: 4n, total_compressed_size: BigInt(groupBytes) }],
    };
    // hyparquet-writer pins its own hyparquet; the metadata is the same shape across both
    out.thrift((w) => writeMetadata(w, metadata as Parameters<typeof writeMetadata>[1]));
    out.u32(0x31524150);
    await out.flush();
    stream.end();
    await once(stream, 'finish');
    if (streamError !== null) throw streamError;
    finished = true;
  } catch (e) {
    throw PipelineError.is(e) ? e : new PipelineError('PIPELINE_OUTPUT_NOT_WRITABLE', `cannot write ${url}`, { cause: e, details: { path: url } });
  } finally {
    if (!finished) {
      // a destroyed atomic stream leaves nothing at `url`
      stream.destroy();
      await once(stream, 'close').catch(() => undefined);
    }
  }
}

/** One column's values and their UTF-8 lengths. */
interface StringColumn {
  values: (string | Uint8Array)[];
  lengths: Int32Array;
}

function columnValues(rows: readonly Record<string, unknown>[], name: string, url: string): StringColumn {
  const values = new Array<string | Uint8Array>(rows.length);
  const lengths = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const v = (rows[i] as Record<string, unknown>)[name];
    if (typeof v === 'string') {
      values[i] = v;
      lengths[i] = Buffer.byteLength(v);
    } else if (v instanceof Uint8Array) {
      values[i] = v;
      lengths[i] = v.byteLength;
    } else {
      throw new PipelineError('PIPELINE_INPUT_INVALID', `cannot write ${url}: column ${JSON.stringify(name)} expects a non-null string, got ${v === null ? 'null' : typeof v}`, {
        details: { path: url, column: name },
      });
    }
  }
  return { values, lengths };
}

/**
 * Writes a column's values as PLAIN data pages v2 (each page's values until it reaches PAGE_BYTES), handing
 * the pieces to the stream whenever FLUSH_BYTES have been copied, so memory stays the caller's rows plus a few MiB.
 */
async function writeColumnPages(out: RunBytes, column: StringColumn): Promise<void> {
  const { values, lengths } = column;
  let first = 0;
  while (first < values.length) {
    let size = 0;
    let end = first;
    while (end < values.length && (end === first || size < PAGE_BYTES)) size += 4 + (lengths[end++] as number);
    out.thrift((w) =>
      writePageHeader(w, {
        type: 'DATA_PAGE_V2',
        uncompressed_page_size: size,
        compressed_page_size: size,
        data_page_header_v2: {
          num_values: end - first,
          num_nulls: 0,
          num_rows: end - first,
          encoding: 'PLAIN',
          definition_levels_byte_length: 0,
          repetition_levels_byte_length: 0,
          is_compressed: false,
        },
      }),
    );
    out.values(values, lengths, first, end);
    first = end;
    if (out.staged >= FLUSH_BYTES) await out.flush();
  }
}

/**
 * The bytes of a run file, in order, as a list of pieces handed to the stream: segments of fresh staging
 * buffers (never written again once cut) and the caller's long values themselves.
 */
class RunBytes {
  offset = 0;
  /** Bytes copied into staging segments since the last flush. */
  staged = 0;
  private staging = Buffer.allocUnsafeSlow(STAGING_BYTES);
  private at = 0;
  private segmentStart = 0;
  private pieces: Uint8Array[] = emptyObjectArray<Uint8Array>();

  constructor(private readonly stream: Writable) {}

  u32(v: number): void {
    this.room(4);
    this.staging.writeUInt32LE(v >>> 0, this.at);
    this.at += 4;
    this.offset += 4;
  }

  /** Appends what `write` writes to a thrift writer (page headers, the footer). */
  thrift(write: (w: ByteWriter) => void): void {
    const w = new ByteWriter(256);
    write(w);
    const bytes = w.getBytes();
    this.room(bytes.byteLength);
    this.staging.set(bytes, this.at);
    this.at += bytes.byteLength;
    this.offset += bytes.byteLength;
  }

  /** Appends values `first` to `end` PLAIN: each one's 4-byte length, then its UTF-8 bytes. */
  values(values: readonly (string | Uint8Array)[], lengths: Int32Array, first: number, end: number): void {
    for (let i = first; i < end; i++) {
      const v = values[i] as string | Uint8Array;
      const len = lengths[i] as number;
      if (typeof v !== 'string' && len >= VIEW_BYTES) {
        this.u32(len);
        this.cut();
        this.pieces.push(v);
        this.offset += len;
        continue;
      }
      this.room(4 + len);
      const { staging } = this;
      staging.writeUInt32LE(len, this.at);
      if (typeof v === 'string') staging.write(v, this.at + 4, len, 'utf8');
      else staging.set(v, this.at + 4);
      this.at += 4 + len;
      this.offset += 4 + len;
    }
  }

  /** Hands the pieces so far to the stream, waiting while its buffer is full. */
  async flush(): Promise<void> {
    this.cut();
    this.staged = 0;
    const pieces = this.pieces;
    this.pieces = emptyObjectArray<Uint8Array>();
    let next = 0;
    while (next < pieces.length) {
      next = writeUntilFull(this.stream, pieces, next);
      if (next < pieces.length) await once(this.stream, 'drain');
    }
  }

  private cut(): void {
    if (this.at > this.segmentStart) {
      this.pieces.push(this.staging.subarray(this.segmentStart, this.at));
      this.staged += this.at - this.segmentStart;
    }
    this.segmentStart = this.at;
  }

  /** Makes room for `n` more bytes in the staging buffer (a fresh one when full: cut segments are never overwritten). */
  private room(n: number): void {
    if (this.at + n <= this.staging.byteLength) return;
    this.cut();
    this.staging = Buffer.allocUnsafeSlow(Math.max(STAGING_BYTES, n));
    this.at = 0;
    this.segmentStart = 0;
  }
}

/**
 * Writes `pieces` from index `from` until the stream's buffer is full; returns the index after the last
 * piece written. A loop of its own, so the async {@link RunBytes.flush} is not recompiled around it.
 */
function writeUntilFull(stream: Writable, pieces: readonly Uint8Array[], from: number): number {
  for (let i = from; i < pieces.length; i++) if (!stream.write(pieces[i])) return i + 1;
  return pieces.length;
}
