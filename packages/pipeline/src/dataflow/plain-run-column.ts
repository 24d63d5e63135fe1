import { isUtf8 } from 'node:buffer';
import type { DataReader, PageHeader } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { PipelineError } from '../errors.js';
import type { ParquetFile } from '../formats/parquet-file.js';

/**
 * True when every chunk of string column `column` of `file` can be read by {@link readPlainRunColumn}: a
 * REQUIRED, flat UTF-8 (string) BYTE_ARRAY column, uncompressed and PLAIN encoded (what the part writer writes for a
 * `plain`, non-nullable string column of an uncompressed file, such as a shuffle run's texts).
 */
export function isPlainRunColumn(file: ParquetFile, column: string): boolean {
  const node = file.schema.children.find((c) => c.element.name === column);
  if (node === undefined || node.children.length > 0) return false;
  const { element } = node;
  if (element.type !== 'BYTE_ARRAY' || element.repetition_type !== 'REQUIRED') return false;
  // strings only: a binary column's values are bytes to hyparquet, not checked UTF-8
  if (element.converted_type !== 'UTF8' && element.logical_type?.type !== 'STRING') return false;
  return file.metadata.row_groups.every((group) => {
    const meta = group.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === column)?.meta_data;
    return meta !== undefined && meta.codec === 'UNCOMPRESSED' && meta.dictionary_page_offset === undefined && meta.encodings.every((e) => e === 'PLAIN' || e === 'RLE' || e === 'BIT_PACKED');
  });
}

/**
 * Row group `rowGroup`'s values of a column {@link isPlainRunColumn} accepts, as views into one read of
 * its column chunk: no copy and no JavaScript string per value. Each value is checked to be valid UTF-8.
 * The views keep the chunk's buffer alive as long as any of them is referenced.
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID naming the file, row group and column for a corrupt
 *   chunk or a value that is not valid UTF-8
 */
export async function readPlainRunColumn(file: ParquetFile, rowGroup: number, column: string): Promise<Uint8Array[]> {
  const fail = (cause: unknown): PipelineError =>
    new PipelineError('PIPELINE_INPUT_INVALID', `cannot decode column ${JSON.stringify(column)} of row group ${rowGroup} of ${file.url}: the file is corrupt or truncated`, {
      cause,
      details: { path: file.url, rowGroup, column },
    });
  const group = file.metadata.row_groups[rowGroup];
  const meta = group?.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === column)?.meta_data;
  if (group === undefined || meta === undefined) throw fail(new Error('the row group has no chunk for the column'));
  const rows = Number(group.num_rows);
  const start = Number(meta.data_page_offset);
  const end = start + Number(meta.total_compressed_size);
  let values: Uint8Array[];
  try {
    if (end > file.byteLength) throw new RangeError(`column chunk [${start}, ${end}) runs past the end of the file (${file.byteLength} bytes)`);
    // a fresh buffer per chunk: the values handed out are views into it
    const chunk = await file.readBytes(start, end);
    if (chunk.byteLength !== end - start) throw new RangeError(`column chunk [${start}, ${end}) runs past the end of the file`);
    values = splitPages(chunk, rows);
  } catch (cause) {
    throw fail(cause);
  }
  if (!allUtf8(values)) {
    throw new PipelineError(
      'PIPELINE_INPUT_INVALID',
      `column ${JSON.stringify(column)} of ${file.url} (row group ${rowGroup}) holds a string that is not valid UTF-8; re-encode the file as UTF-8 or drop it`,
      { details: { path: file.url, rowGroup, column } },
    );
  }
  return values;
}

/** The `rows` PLAIN values of an uncompressed chunk of a REQUIRED column (no levels), as views. */
function splitPages(chunk: Uint8Array, rows: number): Uint8Array[] {
  const values: Uint8Array[] = new Array<Uint8Array>(rows);
  const reader: DataReader = { view: new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength), offset: 0 };
  let n = 0;
  while (n < rows) {
    if (reader.offset >= chunk.byteLength) throw new RangeError(`column chunk ends after ${n} of ${rows} values`);
    const header = parquetHeader(reader);
    const pageStart = reader.offset;
    const pageEnd = pageStart + header.compressed_page_size;
    if (pageEnd > chunk.byteLength || header.compressed_page_size !== header.uncompressed_page_size) throw new RangeError('page runs past the end of its column chunk');
    reader.offset = pageEnd;
    const count = plainPageValues(header);
    if (count === null) continue;
    if (n + count > rows) throw new RangeError(`column chunk holds more than its ${rows} values`);
    if (!cutPlainValues(chunk, pageStart, pageEnd, count, values, n)) throw new RangeError('PLAIN value runs past the end of its page');
    n += count;
  }
  return values;
}

// The per-value loops are small functions of their own, so the engine optimizes them alone (once, for
// every run) instead of recompiling the async reader and the page walk around a hot loop.

/** Cuts `count` PLAIN values of the page `[p, pageEnd)` of `chunk` into `values` from index `n`; false if one runs past the page. */
function cutPlainValues(chunk: Uint8Array, p: number, pageEnd: number, count: number, values: Uint8Array[], n: number): boolean {
  for (let i = 0; i < count; i++) {
    if (p + 4 > pageEnd) return false;
    const len = ((chunk[p] as number) | ((chunk[p + 1] as number) << 8) | ((chunk[p + 2] as number) << 16) | ((chunk[p + 3] as number) << 24)) >>> 0;
    p += 4;
    if (p + len > pageEnd) return false;
    values[n + i] = chunk.subarray(p, p + len);
    p += len;
  }
  return true;
}

/** Bytes read past a page's end with it, so the next page's header usually comes in the same read. */
const HEADER_LOOKAHEAD = 512;

/**
 * A column {@link isPlainRunColumn} accepts, read a page at a time instead of a chunk at a time (a run is
 * one row group, so a whole chunk is the run's whole column): each page (about 1 MiB) is one read into
 * its own buffer, which also takes the start of the next page so its header needs no read of its own.
 * The values handed out are views into the page's buffer, which lives as long as any of them is
 * referenced; a reducer merging many runs holds a page of each instead of every run's whole column. Page
 * buffers are not zero-filled before the read (it overwrites every byte).
 */
export class PlainRunPages {
  private pos: number;
  private readonly end: number;
  private left: number;
  /** Bytes already read from `pos` on (the previous read's lookahead). */
  private tail: Uint8Array | null = null;
  private values: Uint8Array[] = [];
  private index = 0;

  constructor(
    private readonly file: ParquetFile,
    private readonly rowGroup: number,
    private readonly column: string,
  ) {
    const group = file.metadata.row_groups[rowGroup];
    const meta = group?.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === column)?.meta_data;
    if (group === undefined || meta === undefined) throw this.fail(new Error('the row group has no chunk for the column'));
    this.pos = Number(meta.data_page_offset);
    this.end = this.pos + Number(meta.total_compressed_size);
    this.left = Number(group.num_rows);
    if (this.end > file.byteLength) throw this.fail(new RangeError(`column chunk [${this.pos}, ${this.end}) runs past the end of the file (${file.byteLength} bytes)`));
  }

  /** Values read and not yet taken. */
  get available(): number {
    return this.values.length - this.index;
  }

  /** Values of the row group not yet taken. */
  get remaining(): number {
    return this.left + this.available;
  }

  /**
   * Reads pages until a value is available (or the row group's values are all read).
   *
   * @throws {PipelineError} PIPELINE_INPUT_INVALID naming the file, row group and column for a corrupt
   *   chunk or a value that is not valid UTF-8
   */
  async fill(): Promise<void> {
    while (this.available === 0 && this.left > 0) {
      let values: Uint8Array[] | null;
      try {
        values = await this.readPage();
      } catch (cause) {
        throw this.fail(cause);
      }
      if (values === null) continue;
      if (!allUtf8(values)) {
        throw new PipelineError(
          'PIPELINE_INPUT_INVALID',
          `column ${JSON.stringify(this.column)} of ${this.file.url} (row group ${this.rowGroup}) holds a string that is not valid UTF-8; re-encode the file as UTF-8 or drop it`,
          { details: { path: this.file.url, rowGroup: this.rowGroup, column: this.column } },
        );
      }
      this.values = values;
      this.index = 0;
    }
  }

  /** The next `n` values (`n` ≤ {@link available}), in order. */
  take(n: number): Uint8Array[] {
    const out = this.index === 0 && n === this.values.length ? this.values : this.values.slice(this.index, this.index + n);
    this.index += n;
    return out;
  }

  /** Reads the page at `pos`: its values, or null for a page that holds none (a dictionary or index page). */
  private async readPage(): Promise<Uint8Array[] | null> {
    const { file, end, pos } = this;
    if (pos >= end) throw new RangeError(`column chunk ends with ${this.left} values unread`);
    let head = this.tail === null ? null : headerOf(this.tail);
    // a header with long statistics (min/max values) can be longer than the lookahead: read more until it parses
    for (let want = HEADER_LOOKAHEAD; head === null; want *= 4) {
      const bytes = await file.readBytes(pos, Math.min(end, pos + want));
      head = headerOf(bytes);
      if (head === null && pos + want >= end) throw new RangeError(`page header at byte ${pos} is cut off or corrupt`);
    }
    const { header, size } = head;
    const pageEnd = pos + size + header.compressed_page_size;
    if (pageEnd > end || header.compressed_page_size !== header.uncompressed_page_size) throw new RangeError('page runs past the end of its column chunk');
    const readEnd = Math.min(end, pageEnd + HEADER_LOOKAHEAD);
    const page = await file.readBytes(pos, readEnd, uninitialized(readEnd - pos));
    if (page.byteLength !== readEnd - pos) throw new RangeError(`column chunk [${pos}, ${readEnd}) runs past the end of the file`);
    this.pos = pageEnd;
    this.tail = pageEnd < readEnd ? page.subarray(pageEnd - pos) : null;
    const count = plainPageValues(header);
    if (count === null) return null;
    if (count > this.left) throw new RangeError(`column chunk holds more than its ${this.left} remaining values`);
    const values = new Array<Uint8Array>(count);
    if (!cutPlainValues(page, size, size + header.compressed_page_size, count, values, 0)) throw new RangeError('PLAIN value runs past the end of its page');
    this.left -= count;
    return values;
  }

  private fail(cause: unknown): PipelineError {
    return new PipelineError('PIPELINE_INPUT_INVALID', `cannot decode column ${JSON.stringify(this.column)} of row group ${this.rowGroup} of ${this.file.url}: the file is corrupt or truncated`, {
      cause,
      details: { path: this.file.url, rowGroup: this.rowGroup, column: this.column },
    });
  }
}

/** The page header at the start of `bytes` and its size in bytes, or null when `bytes` cut it off. */
function headerOf(bytes: Uint8Array): { header: ReturnType<typeof parquetHeader>; size: number } | null {
  const reader: DataReader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  try {
    const header = parquetHeader(reader);
    return { header, size: reader.offset };
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** A buffer of `n` bytes that are not zero-filled first (a read overwrites them all): no memset, and a reused heap block instead of fresh zero pages. */
function uninitialized(n: number): Uint8Array {
  return new Uint8Array(Buffer.allocUnsafeSlow(n).buffer, 0, n);
}

function allUtf8(values: readonly Uint8Array[]): boolean {
  for (let i = 0; i < values.length; i++) if (!isUtf8(values[i] as Uint8Array)) return false;
  return true;
}

/**
 * The number of values of a run's data page (PLAIN, no nulls, no levels: what the run writers write), or null
 * for a page that holds none (a dictionary or index page).
 * @throws {RangeError} for a data page of any other encoding or with levels
 */
function plainPageValues(header: PageHeader): number | null {
  if (header.type === 'DATA_PAGE_V2' && header.data_page_header_v2 !== undefined) {
    const v2 = header.data_page_header_v2;
    if (v2.encoding !== 'PLAIN' || v2.num_nulls !== 0 || v2.definition_levels_byte_length + v2.repetition_levels_byte_length !== 0) throw new RangeError(`unexpected ${v2.encoding} data page`);
    return v2.num_values;
  }
  if (header.type === 'DATA_PAGE' && header.data_page_header !== undefined) {
    if (header.data_page_header.encoding !== 'PLAIN') throw new RangeError(`unexpected ${header.data_page_header.encoding} data page`);
    return header.data_page_header.num_values;
  }
  return null;
}
