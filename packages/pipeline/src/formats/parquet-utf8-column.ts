import type { ColumnMetaData, CompressionCodec, DataReader, PageHeader } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { deltaByteArray, deltaLengthByteArray } from 'hyparquet/src/delta.js';
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';
import { PipelineError } from '../errors.js';
import { decompressPageInto } from './page-codecs.js';
import { openParquetFile, rowGroupsToRead } from './parquet-file.js';
import type { ParquetFile, ParquetRowGroupInfo } from './parquet-file.js';
import { Utf8ColumnBuilder, isUtf8Column } from './utf8-column.js';
import type { Utf8Arena } from './utf8-column.js';
import type { Utf8Column } from './utf8-column.js';

/** Options of {@link readParquetUtf8Columns}. */
export interface ReadUtf8ColumnOptions {
  /** Only this row group (every group, in order, when omitted). */
  rowGroup?: number | null;
  /**
   * Reuse one column's buffers for every row group: each yielded column is overwritten when the next is
   * read, so the consumer must be done with it (or copy what it keeps) before asking for the next. Saves
   * the fresh memory (and its page faults) of a new column per row group. @default false
   */
  reuseBuffers?: boolean;
  /**
   * Where the columns' bytes come from when they are not reused: for a consumer that keeps every column
   * (see {@link Utf8Arena}); ignored with `reuseBuffers`. @default a buffer per row group
   */
  arena?: Utf8Arena;
  /** Checked between row groups. */
  signal?: AbortSignal;
}

/** One row group's string column, as {@link readParquetUtf8Columns} yields it. */
export interface Utf8ColumnGroup {
  rowGroup: number;
  column: Utf8Column;
}

/**
 * Streams one top-level string column of a parquet file, a row group at a time, as a {@link Utf8Column}
 * (UTF-8 bytes and offsets, as Arrow holds a string column): no JavaScript string or object per value,
 * for consumers that work on bytes (hashing, writing, byte-level scanning). Pages are decoded straight
 * into the column's buffer (PLAIN, dictionary, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY encodings,
 * data pages v1 and v2, nulls, every codec of {@link readParquetRecords}), each page decompressed into
 * one reused buffer where the codec allows; every value is checked to be valid UTF-8. Memory is one row
 * group's column plus one page.
 *
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND for a missing file, column or row group;
 *   PIPELINE_SCHEMA_MISMATCH when the column is not a flat BYTE_ARRAY (string) column;
 *   PIPELINE_INPUT_INVALID naming the file, row group and column for a corrupt page or invalid UTF-8
 */
export async function* readParquetUtf8Columns(source: string | ParquetFile, column: string, options: ReadUtf8ColumnOptions = {}): AsyncGenerator<Utf8ColumnGroup> {
  const file = typeof source === 'string' ? await openParquetFile(source) : source;
  // buffers a finished read left behind are taken over (an allocator's free list of one), so reading
  // file after file does not fault fresh memory in for every file
  const buffers: ReadBuffers = spare ?? { chunk: new Uint8Array(0), previous: null };
  spare = null;
  // a reused column's buffer is written over past its end, so it never comes from an arena
  const arena = options.reuseBuffers === true ? null : (options.arena ?? null);
  try {
    for (const group of rowGroupsToRead(file, options.rowGroup)) {
      options.signal?.throwIfAborted();
      const read = await readUtf8Column(file, group, column, buffers, arena);
      // a column the consumer keeps is never written over: only with reuseBuffers is it reused next
      buffers.previous = options.reuseBuffers === true ? read : null;
      yield { rowGroup: group.index, column: read };
    }
  } finally {
    // kept for the next read only up to a bound, so one huge row group does not pin its memory for good
    if (buffers.chunk.byteLength > SPARE_MAX_BYTES) buffers.chunk = new Uint8Array(0);
    if (buffers.previous !== null && buffers.previous.bytes.buffer.byteLength > SPARE_MAX_BYTES) buffers.previous = null;
    // several columns read side by side (a text and its file's ids, urls) end one after the other: the
    // largest chunk buffer is the one kept, so the next file's text does not fault a fresh one in
    // (another read may have left its buffers since this one took them: TypeScript's narrowing cannot see that)
    const left = spare as ReadBuffers | null;
    if (left === null || left.chunk.byteLength <= buffers.chunk.byteLength) spare = buffers;
    if (typeof source === 'string') await file.close();
  }
}

let spare: ReadBuffers | null = null;

/** The largest buffer a finished read leaves for the next one (and the largest page buffer kept). */
const SPARE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Buffers one reader reuses from row group to row group (never shared by two reads in flight). When a
 * read ends they are left for the next read to take; the process keeps them (one column chunk, and with
 * `reuseBuffers` one column) until then.
 */
interface ReadBuffers {
  /** Where column chunks are read. */
  chunk: Uint8Array;
  /** The last column, whose buffers the next one reuses (with `reuseBuffers`). */
  previous: Utf8Column | null;
}

/** One row group's string column of an opened file (see {@link readParquetUtf8Columns}). */
async function readUtf8Column(file: ParquetFile, group: ParquetRowGroupInfo, column: string, buffers: ReadBuffers, arena: Utf8Arena | null): Promise<Utf8Column> {
  const maxDefinition = checkedColumn(file, column);
  const meta = file.metadata.row_groups[group.index]?.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === column)?.meta_data;
  const fail = (cause: unknown): PipelineError =>
    new PipelineError('PIPELINE_INPUT_INVALID', `cannot decode column ${JSON.stringify(column)} of row group ${group.index} of ${file.url}: the file is corrupt or truncated`, {
      cause,
      details: { path: file.url, rowGroup: group.index, column },
    });
  if (meta === undefined) throw fail(new Error('the row group has no chunk for the column'));
  let result: Utf8Column;
  try {
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const end = start + Number(meta.total_compressed_size);
    if (end > file.byteLength) throw new RangeError(`column chunk [${start}, ${end}) runs past the end of the file (${file.byteLength} bytes)`);
    // not zero-filled: the chunk is read over it
    if (buffers.chunk.byteLength < end - start) buffers.chunk = Buffer.allocUnsafeSlow(end - start);
    const chunk = await file.readBytes(start, end, buffers.chunk);
    if (chunk.byteLength !== end - start) throw new RangeError(`column chunk [${start}, ${end}) runs past the end of the file`);
    result = decodeChunk(chunk, meta, group.numRows, maxDefinition, buffers.previous, arena);
  } catch (cause) {
    throw fail(cause);
  }
  if (!isUtf8Column(result)) {
    throw new PipelineError(
      'PIPELINE_INPUT_INVALID',
      `column ${JSON.stringify(column)} of ${file.url} (row group ${group.index}) holds a string that is not valid UTF-8; re-encode the file as UTF-8 or drop it`,
      { details: { path: file.url, rowGroup: group.index, column } },
    );
  }
  return result;
}

/** The column's maximum definition level (1 when nullable), after checking it is a flat BYTE_ARRAY column. */
function checkedColumn(file: ParquetFile, column: string): number {
  const node = file.schema.children.find((c) => c.element.name === column);
  if (node === undefined) {
    throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `${file.url} has no column ${JSON.stringify(column)}; its columns are ${file.columns.join(', ')}`, {
      details: { path: file.url, column },
    });
  }
  const { element } = node;
  if (node.children.length > 0 || element.type !== 'BYTE_ARRAY' || element.repetition_type === 'REPEATED') {
    throw new PipelineError('PIPELINE_SCHEMA_MISMATCH', `column ${JSON.stringify(column)} of ${file.url} is not a string column (${element.type ?? 'a group'}, ${element.repetition_type ?? 'REQUIRED'})`, {
      details: { path: file.url, column },
    });
  }
  return element.repetition_type === 'OPTIONAL' ? 1 : 0;
}

// One page buffer shared by every read: a page is decoded synchronously and copied out before the next.
let scratch = new Uint8Array(0);

function pageScratch(size: number): Uint8Array {
  // an outsized page (a document of many MB) gets a buffer of its own, dropped after the page
  if (size > SPARE_MAX_BYTES) return new Uint8Array(size);
  if (scratch.byteLength < size) scratch = new Uint8Array(Math.max(size, 1 << 20));
  return scratch;
}

/** A dictionary page's values: offsets into the page's own (kept) bytes. */
interface Dictionary {
  bytes: Uint8Array;
  starts: Int32Array;
  lengths: Int32Array;
}

/** Decodes the pages of one column chunk (its bytes in `chunk`) into a column of `rows` values. */
function decodeChunk(chunk: Uint8Array, meta: ColumnMetaData, rows: number, maxDefinition: number, reuse: Utf8Column | null, arena: Utf8Arena | null): Utf8Column {
  // a PLAIN chunk's uncompressed size bounds its values' bytes; dictionary chunks grow the buffer
  const out = new Utf8ColumnBuilder(rows, Math.min(Number(meta.total_uncompressed_size), 0x7fffffff), reuse, arena);
  const reader: DataReader = { view: new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength), offset: 0 };
  let dictionary: Dictionary | null = null;
  while (out.length < rows) {
    if (reader.offset >= chunk.byteLength) throw new RangeError(`column chunk ends after ${out.length} of ${rows} values`);
    const header = parquetHeader(reader);
    const frame = chunk.subarray(reader.offset, reader.offset + header.compressed_page_size);
    if (frame.byteLength !== header.compressed_page_size) throw new RangeError('page runs past the end of its column chunk');
    reader.offset += header.compressed_page_size;
    if (header.type === 'DICTIONARY_PAGE') {
      // kept for the whole chunk, so never decompressed into the shared page buffer
      const page = decompressPageInto(meta.codec, frame, header.uncompressed_page_size, new Uint8Array(0));
      dictionary = readDictionary(page, header.dictionary_page_header?.num_values ?? 0);
    } else if (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
      decodeDataPage(out, header, frame, meta.codec, maxDefinition, dictionary);
    }
    // index pages (and any other page type) carry no values
  }
  return out.finish();
}

function readDictionary(page: Uint8Array, count: number): Dictionary {
  const starts = new Int32Array(count);
  const lengths = new Int32Array(count);
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 4 > page.byteLength) throw new RangeError('dictionary value runs past the end of its page');
    const len = ((page[p] as number) | ((page[p + 1] as number) << 8) | ((page[p + 2] as number) << 16) | ((page[p + 3] as number) << 24)) >>> 0;
    starts[i] = p + 4;
    lengths[i] = len;
    p += 4 + len;
    if (p > page.byteLength) throw new RangeError('dictionary value runs past the end of its page');
  }
  return { bytes: page, starts, lengths };
}

function decodeDataPage(out: Utf8ColumnBuilder, header: PageHeader, frame: Uint8Array, codec: CompressionCodec, maxDefinition: number, dictionary: Dictionary | null): void {
  let values: Uint8Array;
  let levels: Uint8Array | null = null;
  let numValues: number;
  let encoding: string;
  const v1 = header.data_page_header;
  const v2 = header.data_page_header_v2;
  if (header.type === 'DATA_PAGE') {
    if (v1 === undefined) throw new RangeError('data page without its header');
    numValues = v1.num_values;
    encoding = v1.encoding;
    const page = decompressPageInto(codec, frame, header.uncompressed_page_size, pageScratch(header.uncompressed_page_size));
    const reader: DataReader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
    if (maxDefinition > 0) {
      levels = new Uint8Array(numValues);
      readRleBitPackedHybrid(reader, 1, levels);
    }
    values = page.subarray(reader.offset);
  } else {
    if (v2 === undefined) throw new RangeError('data page v2 without its header');
    numValues = v2.num_values;
    encoding = v2.encoding;
    const levelBytes = v2.repetition_levels_byte_length + v2.definition_levels_byte_length;
    if (maxDefinition > 0 && v2.num_nulls > 0) {
      levels = new Uint8Array(numValues);
      const reader: DataReader = { view: new DataView(frame.buffer, frame.byteOffset, frame.byteLength), offset: v2.repetition_levels_byte_length };
      readRleBitPackedHybrid(reader, 1, levels, v2.definition_levels_byte_length);
    }
    const size = header.uncompressed_page_size - levelBytes;
    const raw = frame.subarray(levelBytes);
    values = v2.is_compressed === false || size === 0 ? raw : decompressPageInto(codec, raw, size, pageScratch(size));
  }
  const present = levels === null ? numValues : countPresent(levels, maxDefinition);
  if (encoding === 'PLAIN') {
    out.pushPlain(values, present, levels, maxDefinition);
  } else if (encoding === 'PLAIN_DICTIONARY' || encoding === 'RLE_DICTIONARY') {
    if (dictionary === null) throw new RangeError('dictionary-encoded page without a dictionary page');
    pushDictionary(out, values, present, levels, maxDefinition, dictionary);
  } else if (encoding === 'DELTA_LENGTH_BYTE_ARRAY' || encoding === 'DELTA_BYTE_ARRAY') {
    const decoded: Uint8Array[] = new Array<Uint8Array>(present);
    const reader: DataReader = { view: new DataView(values.buffer, values.byteOffset, values.byteLength), offset: 0 };
    if (encoding === 'DELTA_LENGTH_BYTE_ARRAY') deltaLengthByteArray(reader, present, decoded);
    else deltaByteArray(reader, present, decoded);
    let k = 0;
    const n = levels === null ? present : levels.length;
    for (let i = 0; i < n; i++) {
      if (levels !== null && levels[i] !== maxDefinition) out.pushNull();
      else {
        const v = decoded[k++] as Uint8Array;
        out.push(v, 0, v.byteLength);
      }
    }
  } else {
    throw new RangeError(`unsupported encoding ${encoding} of a string column`);
  }
}

function countPresent(levels: Uint8Array, maxDefinition: number): number {
  let n = 0;
  for (let i = 0; i < levels.length; i++) if (levels[i] === maxDefinition) n += 1;
  return n;
}

function pushDictionary(out: Utf8ColumnBuilder, values: Uint8Array, present: number, levels: Uint8Array | null, maxDefinition: number, dictionary: Dictionary): void {
  const indices = new Int32Array(present);
  const bitWidth = values[0] ?? 0;
  if (bitWidth > 0 && present > 0) {
    readRleBitPackedHybrid({ view: new DataView(values.buffer, values.byteOffset, values.byteLength), offset: 1 }, bitWidth, indices, values.byteLength - 1);
  }
  const { bytes, starts, lengths } = dictionary;
  let k = 0;
  const n = levels === null ? present : levels.length;
  for (let i = 0; i < n; i++) {
    if (levels !== null && levels[i] !== maxDefinition) {
      out.pushNull();
      continue;
    }
    const index = indices[k++] as number;
    if (index >= starts.length) throw new RangeError(`dictionary index ${index} past the dictionary's ${starts.length} values`);
    out.push(bytes, starts[index] as number, lengths[index] as number);
  }
}
