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
    let size = 0;
    let end = first;
    while (end < values.length && (end === first || size < PAGE_BYTES)) {
      const v = values[end] as string | Uint8Array;
      size += 4 + (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.byteLength);
      end += 1;
    }
    // a compressed page is read only by the compressor, so one scratch buffer serves every page
    let page: Buffer;
    if (zstd === null) page = Buffer.allocUnsafe(size);
    else {
      if (sink.scratch === null || sink.scratch.byteLength < size) sink.scratch = Buffer.allocUnsafe(Math.max(size, PAGE_BYTES + (PAGE_BYTES >> 2)));
      page = sink.scratch.subarray(0, size);
    }
    let at = 0;
    for (let i = first; i < end; i++) {
      const v = values[i] as string | Uint8Array;
      const len = typeof v === 'string' ? page.write(v, at + 4, 'utf8') : (page.set(v, at + 4), v.byteLength);
      page.writeUInt32LE(len, at);
      at += 4 + len;
    }
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
