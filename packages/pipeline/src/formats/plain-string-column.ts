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

/**
 * Writes one column chunk of a REQUIRED UTF-8 column, PLAIN encoded in data pages v2 of about 1 MiB:
 * each page is laid out once in a buffer of its exact size (strings encoded straight into it, UTF-8
 * bytes copied), then either compressed (through one reused scratch page and the compressor's reused
 * output, the frame copied into the sink's buffer) or handed to the sink as it is. hyparquet-writer does the same through growing
 * buffers and several copies per page; for document texts this is most of a writer's cost apart from
 * compression. Returns the chunk's metadata for the footer.
 */
export function writePlainStringChunk(
  sink: ChunkSink,
  name: string,
  values: readonly (string | Uint8Array)[],
  codec: 'ZSTD' | 'UNCOMPRESSED',
  zstd: ZstdPageCompressor | null,
): { chunk: ColumnChunk; uncompressedBytes: number } {
  const { bytes } = sink;
  const start = bytes.offset;
  let uncompressedBytes = 0;
  let first = 0;
  while (first < values.length) {
    const end = pageEnd(values, first);
    const size = lastPageBytes;
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
      uncompressed_page_size: size,
      compressed_page_size: data.byteLength,
      data_page_header_v2: {
        num_values: end - first,
        num_nulls: 0,
        num_rows: end - first,
        encoding: 'PLAIN',
        definition_levels_byte_length: 0,
        repetition_levels_byte_length: 0,
        is_compressed: zstd !== null,
      },
    });
    uncompressedBytes += bytes.offset - headerStart + size;
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

// The per-value loops are small functions of their own, so the engine optimizes them alone (and once)
// instead of recompiling the whole chunk writer around a hot loop.

/** The PLAIN bytes of the page {@link pageEnd} measured last (a 4-byte length and the UTF-8 bytes per value). */
let lastPageBytes = 0;

/**
 * The end of the page starting at value `first`: values are added until the page reaches PAGE_BYTES.
 * Leaves the page's size in {@link lastPageBytes}, so each string's UTF-8 length is computed once.
 */
function pageEnd(values: readonly (string | Uint8Array)[], first: number): number {
  let size = 0;
  let end = first;
  while (end < values.length && (end === first || size < PAGE_BYTES)) {
    const v = values[end] as string | Uint8Array;
    // without an encoding argument, Buffer.byteLength goes straight to its UTF-8 count
    size += 4 + (typeof v === 'string' ? Buffer.byteLength(v) : v.byteLength);
    end += 1;
  }
  lastPageBytes = size;
  return end;
}

/** Lays values `first` to `end` out PLAIN in `page`, which has exactly their size. */
function fillPlainPage(page: Buffer, values: readonly (string | Uint8Array)[], first: number, end: number): void {
  let at = 0;
  for (let i = first; i < end; i++) {
    const v = values[i] as string | Uint8Array;
    let len: number;
    if (typeof v === 'string') len = page.write(v, at + 4, 'utf8');
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
