import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { CompressionCodec, Compressors } from 'hyparquet';
import { compressors as jsCompressors } from 'hyparquet-compressors';
import { createRequire } from 'node:module';
import type * as Snappy from 'snappy';
import { optionalZstd, zstdDecompressInto, zstdDecompressKnownSize } from './zstd-binding.js';

// Native codecs where Node or a dependency has them (zstd through zstd-napi when that optional peer is
// installed, snappy through the napi-rs `snappy` binding, gzip and brotli through zlib): several times
// faster than the pure-JS and WASM ones; lz4 stays on hyparquet-compressors, and so do zstd without the peer
// and snappy where napi-rs has no binary for the platform. zstd pages decompress through one reused
// native context straight into a buffer of the size their header gives.
const nativeZstd = optionalZstd();
const nativeSnappy = optionalSnappy();

function optionalSnappy(): typeof Snappy | null {
  try {
    return createRequire(import.meta.url)('snappy') as typeof Snappy;
  } catch {
    return null;
  }
}

/** hyparquet's page decompressors, one per codec: a new buffer of the page's size per call. */
export const PAGE_DECOMPRESSORS: Compressors = {
  ...jsCompressors,
  ...(nativeZstd === null ? {} : { ZSTD: zstdDecompressKnownSize }),
  ...(nativeSnappy === null ? {} : { SNAPPY: (input: Uint8Array): Uint8Array => nativeSnappy.uncompressSync(input, { asBuffer: true }) as Buffer }),
  GZIP: (input: Uint8Array): Uint8Array => gunzipSync(input),
  BROTLI: (input: Uint8Array): Uint8Array => brotliDecompressSync(input),
};

/**
 * Decompresses a page of `size` bytes, into `scratch` when the codec can write into a caller's buffer
 * (zstd through zstd-napi) and `scratch` is large enough, else into a new buffer; uncompressed pages are returned as they are. The result is valid until `scratch` is reused.
 *
 * @throws Error when the page is corrupt or does not decompress to exactly `size` bytes
 */
export function decompressPageInto(codec: CompressionCodec, frame: Uint8Array, size: number, scratch: Uint8Array): Uint8Array {
  if (codec === 'UNCOMPRESSED') {
    if (frame.byteLength !== size) throw new Error(`uncompressed page of ${frame.byteLength} bytes, its header gives ${size}`);
    return frame;
  }
  if (codec === 'ZSTD' && nativeZstd !== null && size <= scratch.byteLength) return zstdDecompressInto(frame, scratch.subarray(0, size));
  const decompress = PAGE_DECOMPRESSORS[codec];
  if (decompress === undefined) throw new Error(`unsupported compression codec ${codec}`);
  const out = decompress(frame, size);
  if (out.byteLength !== size) throw new Error(`page decompressed to ${out.byteLength} bytes, its header gives ${size}`);
  return out;
}
