import { isUtf8 } from 'node:buffer';
import type { DataReader } from 'hyparquet';
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
    let count: number;
    if (header.type === 'DATA_PAGE_V2' && header.data_page_header_v2 !== undefined) {
      const v2 = header.data_page_header_v2;
      if (v2.encoding !== 'PLAIN' || v2.num_nulls !== 0 || v2.definition_levels_byte_length + v2.repetition_levels_byte_length !== 0) throw new RangeError(`unexpected ${v2.encoding} data page`);
      count = v2.num_values;
    } else if (header.type === 'DATA_PAGE' && header.data_page_header !== undefined) {
      if (header.data_page_header.encoding !== 'PLAIN') throw new RangeError(`unexpected ${header.data_page_header.encoding} data page`);
      count = header.data_page_header.num_values;
    } else {
      continue;
    }
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

function allUtf8(values: readonly Uint8Array[]): boolean {
  for (let i = 0; i < values.length; i++) if (!isUtf8(values[i] as Uint8Array)) return false;
  return true;
}
