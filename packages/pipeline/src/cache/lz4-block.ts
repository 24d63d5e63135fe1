import { compress, compressSync, uncompressSync } from 'lz4-napi';
import { PipelineError } from '../errors.js';

/**
 * Raw LZ4 blocks (no frame, no size prefix), the format c-blosc stores inside its blocks.
 * lz4-napi's block functions prepend the uncompressed size as a little-endian u32; these helpers
 * strip and re-add that prefix.
 */
const SIZE_PREFIX_BYTES = 4;

/** Compresses `src` into a raw LZ4 block. */
export function compressLz4Block(src: Uint8Array): Uint8Array {
  const buf = Buffer.from(src.buffer, src.byteOffset, src.byteLength);
  return compressSync(buf).subarray(SIZE_PREFIX_BYTES);
}

/** Compresses `src` into a raw LZ4 block on libuv's thread pool, so several blocks compress in parallel. */
export async function compressLz4BlockAsync(src: Uint8Array): Promise<Uint8Array> {
  return (await compress(src)).subarray(SIZE_PREFIX_BYTES);
}

/**
 * Decompresses a raw LZ4 block whose decoded size is known.
 * @throws Error from the decoder when the block is corrupt; {PipelineError} PIPELINE_CACHE_INVALID when it decodes to another size
 */
export function decompressLz4Block(block: Uint8Array, decodedBytes: number): Uint8Array {
  const prefixed = Buffer.allocUnsafe(SIZE_PREFIX_BYTES + block.byteLength);
  prefixed.writeUInt32LE(decodedBytes, 0);
  prefixed.set(block, SIZE_PREFIX_BYTES);
  const out = uncompressSync(prefixed);
  if (out.byteLength !== decodedBytes) throw new PipelineError('PIPELINE_CACHE_INVALID', `lz4 block decoded to ${out.byteLength} bytes, expected ${decodedBytes}`);
  return out;
}
