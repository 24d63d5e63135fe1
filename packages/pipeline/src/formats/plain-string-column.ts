import type { ColumnChunk } from 'hyparquet';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import type { ByteWriter } from 'hyparquet-writer';
import type { ZstdPageCompressor } from './zstd-binding.js';

/** Uncompressed bytes per data page, as hyparquet-writer's default. */
const PAGE_BYTES = 1 << 20;

/** Where a column chunk is written: the part writer's byte writer, plus a way to hand over a whole buffer without copying it. */
export interface ChunkSink {
  bytes: ByteWriter;
  /** Appends `data` to the file as it is (the sink keeps the reference; the caller must not reuse it). */
  appendOwned(data: Uint8Array): void;
  /** A page buffer reused across pages that are compressed (set by {@link writePlainStringChunk}). */
  scratch: Buffer | null;
}

/** A string column's values as the chunk writer takes them: strings, UTF-8 bytes, and (OPTIONAL columns) nulls. */
export type StringValues = readonly (string | Uint8Array | null | undefined)[];

/**
 * Writes one column chunk of a flat UTF-8 column, PLAIN encoded in data pages v2 of about 1 MiB: each
 * page is laid out once in a buffer of its exact size (strings encoded straight into it, UTF-8 bytes
 * copied), then either compressed (through one reused scratch page and the compressor's reused output,
 * the frame copied into the sink's buffer) or handed to the sink as it is. hyparquet-writer does the
 * same through growing buffers and several copies per page; for document texts this is most of a
 * writer's cost apart from compression. An OPTIONAL column (`nullable`) gets each page's definition
 * levels as hyparquet-writer writes them (RLE/bit-packed hybrid of width 1, uncompressed, before the
 * values); its nulls take no bytes among the values. Returns the chunk's metadata for the footer.
 */
export function writePlainStringChunk(
  sink: ChunkSink,
  name: string,
  values: StringValues,
  codec: 'ZSTD' | 'UNCOMPRESSED',
  zstd: ZstdPageCompressor | null,
  nullable = false,
): { chunk: ColumnChunk; uncompressedBytes: number } {
  const { bytes } = sink;
  const start = bytes.offset;
  let uncompressedBytes = 0;
  let first = 0;
  while (first < values.length) {
    const end = pageEnd(values, first);
    const size = lastPageBytes;
    const nulls = lastPageNulls;
    const levels = nullable ? definitionLevels(values, first, end) : null;
    const levelBytes = levels === null ? 0 : levels.byteLength;
    // a compressed page is read only by the compressor, so one scratch buffer serves every page
    let page: Buffer;
    if (zstd === null) page = Buffer.allocUnsafe(size);
    else {
      if (sink.scratch === null || sink.scratch.byteLength < size) sink.scratch = Buffer.allocUnsafe(Math.max(size, PAGE_BYTES + (PAGE_BYTES >> 2)));
      page = sink.scratch.subarray(0, size);
    }
    fillPlainPage(page, values, first, end);
    const data = zstd === null ? page : zstd.compressTransient(page);
    const headerStart = bytes.offset;
    writePageHeader(bytes, {
      type: 'DATA_PAGE_V2',
      uncompressed_page_size: levelBytes + size,
      compressed_page_size: levelBytes + data.byteLength,
      data_page_header_v2: {
        num_values: end - first,
        num_nulls: nulls,
        num_rows: end - first,
        encoding: 'PLAIN',
        definition_levels_byte_length: levelBytes,
        repetition_levels_byte_length: 0,
        is_compressed: zstd !== null,
      },
    });
    uncompressedBytes += bytes.offset - headerStart + levelBytes + size;
    if (levels !== null) bytes.appendBytes(levels);
    if (zstd === null) sink.appendOwned(data);
    else bytes.appendBytes(data);
    first = end;
  }
  return {
    chunk: {
      meta_data: {
        type: 'BYTE_ARRAY',
        encodings: ['PLAIN'],
        path_in_schema: [name],
        codec,
        num_values: BigInt(values.length),
        total_compressed_size: BigInt(bytes.offset - start),
        total_uncompressed_size: BigInt(uncompressedBytes),
        data_page_offset: BigInt(start),
      },
      file_offset: BigInt(start),
    },
    uncompressedBytes,
  };
}

/** Values sampled to judge whether a column would be dictionary encoded (as hyparquet-writer samples). */
const DICTIONARY_SAMPLE = 1000;

/**
 * True when hyparquet-writer would write `values` (a string column not marked `plain`) PLAIN anyway:
 * its dictionary sampling (up to 1000 values spread over the chunk, weighted by bytes) finds the distinct
 * values above 90 % of the sampled bytes, or there are no bytes at all. Such a chunk can be written by
 * {@link writePlainStringChunk} with the same encoding; any other is left to hyparquet-writer, which may
 * build a dictionary (a column of few distinct values, such as a source name).
 */
export function dictionaryRejected(values: StringValues): boolean {
  const n = Math.min(values.length, DICTIONARY_SAMPLE);
  const seen = new Set<string>();
  let distinct = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const v = values[n === 1 ? 0 : Math.floor((i * (values.length - 1)) / (n - 1))];
    if (v === null || v === undefined) continue;
    // hyparquet-writer counts a string by its UTF-16 length and bytes by their length, plus a 4-byte prefix
    const key = typeof v === 'string' ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('latin1');
    const size = (typeof v === 'string' ? v.length : v.byteLength) + 4;
    total += size;
    if (!seen.has(key)) {
      seen.add(key);
      distinct += size;
    }
  }
  return total === 0 || distinct / total > 0.9;
}

// The per-value loops are small functions of their own, so the engine optimizes them alone (and once)
// instead of recompiling the whole chunk writer around a hot loop.

/** The PLAIN bytes of the page {@link pageEnd} measured last (a 4-byte length and the UTF-8 bytes per value). */
let lastPageBytes = 0;
/** The nulls of the page {@link pageEnd} measured last. */
let lastPageNulls = 0;

/**
 * The end of the page starting at value `first`: values are added until the page reaches PAGE_BYTES.
 * Leaves the page's size in {@link lastPageBytes}, so each string's UTF-8 length is computed once.
 */
function pageEnd(values: StringValues, first: number): number {
  let size = 0;
  let nulls = 0;
  let end = first;
  while (end < values.length && (end === first || size < PAGE_BYTES)) {
    const v = values[end];
    // without an encoding argument, Buffer.byteLength goes straight to its UTF-8 count
    if (typeof v === 'string') size += 4 + Buffer.byteLength(v);
    else if (v === null || v === undefined) nulls += 1;
    else size += 4 + v.byteLength;
    end += 1;
  }
  lastPageBytes = size;
  lastPageNulls = nulls;
  return end;
}

/** Lays values `first` to `end` out PLAIN in `page`, which has exactly their size (nulls take no bytes). */
function fillPlainPage(page: Buffer, values: StringValues, first: number, end: number): void {
  let at = 0;
  for (let i = first; i < end; i++) {
    const v = values[i];
    let len: number;
    if (typeof v === 'string') len = page.write(v, at + 4, 'utf8');
    else if (v === null || v === undefined) continue;
    else {
      page.set(v, at + 4);
      len = v.byteLength;
    }
    page[at] = len & 0xff;
    page[at + 1] = (len >>> 8) & 0xff;
    page[at + 2] = (len >>> 16) & 0xff;
    page[at + 3] = len >>> 24;
    at += 4 + len;
  }
}

/**
 * The definition levels of values `first` to `end` (1 present, 0 null), RLE/bit-packed hybrid of bit width 1
 * laid out exactly as hyparquet-writer's `writeRleBitPackedHybrid` does: a run of 8 or more equal levels is
 * one RLE run, anything else goes into bit-packed groups of 8 (the last one padded with zeros).
 */
export function definitionLevels(values: StringValues, first: number, end: number): Uint8Array {
  const out: number[] = [];
  const level = (k: number): number => (values[k] === null || values[k] === undefined ? 0 : 1);
  let groups = 0;
  let packedStart = 0;
  let i = first;
  while (i < end) {
    const v = level(i);
    let run = 1;
    while (i + run < end && level(i + run) === v) run += 1;
    if (run >= 8) {
      if (groups > 0) packGroups(out, level, packedStart, groups, end);
      groups = 0;
      pushVarInt(out, run << 1);
      out.push(v);
      i += run;
    } else {
      if (groups === 0) packedStart = i;
      groups += 1;
      i += 8;
    }
  }
  if (groups > 0) packGroups(out, level, packedStart, groups, end);
  return Uint8Array.from(out);
}

/** Bit-packed groups of 8 levels of width 1 from `start`, with their header; levels past `end` are 0. */
function packGroups(out: number[], level: (k: number) => number, start: number, groups: number, end: number): void {
  pushVarInt(out, (groups << 1) | 1);
  for (let g = 0; g < groups; g++) {
    let byte = 0;
    for (let b = 0; b < 8; b++) {
      const k = start + g * 8 + b;
      if (k < end) byte |= level(k) << b;
    }
    out.push(byte);
  }
}

function pushVarInt(out: number[], value: number): void {
  let v = value;
  while ((v & ~0x7f) !== 0) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
}
