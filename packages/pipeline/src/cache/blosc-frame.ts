import { PipelineError } from '../errors.js';
import { shuffleBytes, unshuffleBytes } from './byte-shuffle.js';
import { compressLz4Block, compressLz4BlockAsync, decompressLz4Block } from './lz4-block.js';

/**
 * Blosc1 frames (the `blosc` codec of zarr v3), as c-blosc 1.x writes and reads them.
 *
 * Header (16 bytes): version 2, codec format version 1, flags, typesize, then u32le nbytes (decoded
 * size), blocksize and cbytes (whole frame). Flags: bit 0 byte shuffle, bit 1 stored (MEMCPYED),
 * bit 2 bit shuffle, bit 4 "don't split", bits 5-7 the codec (1 = LZ4).
 * A stored frame is the header followed by the raw bytes. Otherwise an i32le start offset per block
 * follows the header, and each block is one or `typesize` streams (split blocks), each an i32le
 * compressed length and then the LZ4 block; a length equal to the stream's decoded size marks a
 * stream stored raw.
 */
export const BLOSC_HEADER_BYTES = 16;
const VERSION_FORMAT = 2;
const LZ4_VERSION_FORMAT = 1;
const FLAG_SHUFFLE = 0x01;
const FLAG_MEMCPYED = 0x02;
const FLAG_BITSHUFFLE = 0x04;
const FLAG_DONT_SPLIT = 0x10;
const CODEC_LZ4 = 1;
// c-blosc only splits a block into per-byte streams when each stream holds at least this many
// elements and the type is at most this wide; a decoder must apply the same rule.
const MIN_SPLIT_ELEMENTS = 128;
const MAX_SPLITS = 16;

/** How a frame's payload is stored. */
export type BloscCompression = 'lz4' | 'none';

/** Options of {@link encodeBloscFrame}. */
export interface BloscEncodeOptions {
  /** Element width in bytes; drives the byte shuffle. */
  typesize: number;
  /** `lz4`: shuffled LZ4 blocks; `none`: a stored frame, the raw bytes behind a header. */
  compression: BloscCompression;
  /**
   * Decoded bytes per block (rounded down to a multiple of `typesize`).
   * @default 262144
   */
  blocksize?: number;
}

/** The default block size: four blocks per 1 MiB chunk of int32 tokens. */
export const DEFAULT_BLOSC_BLOCKSIZE = 256 * 1024;

function writeHeader(out: Uint8Array, flags: number, typesize: number, nbytes: number, blocksize: number, cbytes: number): void {
  const view = new DataView(out.buffer, out.byteOffset, BLOSC_HEADER_BYTES);
  out[0] = VERSION_FORMAT;
  out[1] = LZ4_VERSION_FORMAT;
  out[2] = flags;
  out[3] = typesize;
  view.setUint32(4, nbytes, true);
  view.setUint32(8, blocksize, true);
  view.setUint32(12, cbytes, true);
}

/** A stored (MEMCPYED) frame: header plus the raw bytes. */
export function encodeStoredBloscFrame(src: Uint8Array, typesize: number): Uint8Array {
  const out = new Uint8Array(BLOSC_HEADER_BYTES + src.byteLength);
  writeHeader(out, FLAG_MEMCPYED, typesize, src.byteLength, src.byteLength, out.byteLength);
  out.set(src, BLOSC_HEADER_BYTES);
  return out;
}

interface FramePlan {
  blocksize: number;
  /** The input with each block byte-shuffled in place of a copy (or the input itself for typesize 1). */
  shuffled: Uint8Array;
  blocks: Uint8Array[];
}

function planFrame(src: Uint8Array, typesize: number, requestedBlocksize: number): FramePlan {
  const blocksize = Math.min(src.byteLength, Math.max(typesize, Math.floor(requestedBlocksize / typesize) * typesize));
  const nblocks = Math.ceil(src.byteLength / blocksize);
  const shuffled = typesize > 1 ? new Uint8Array(src.byteLength) : src;
  const blocks: Uint8Array[] = [];
  for (let b = 0; b < nblocks; b++) {
    const start = b * blocksize;
    const end = Math.min(src.byteLength, start + blocksize);
    if (typesize > 1) shuffleBytes(src.subarray(start, end), typesize, shuffled.subarray(start, end));
    blocks.push(shuffled.subarray(start, end));
  }
  return { blocksize, shuffled, blocks };
}

/** Lays out header, block starts and streams; falls back to a stored frame when that is not smaller. */
function assembleFrame(src: Uint8Array, typesize: number, plan: FramePlan, packed: readonly Uint8Array[]): Uint8Array {
  const nblocks = plan.blocks.length;
  // A block that does not shrink is kept raw (its length then equals its decoded size).
  const streams = plan.blocks.map((block, b) => (packed[b]!.byteLength > 0 && packed[b]!.byteLength < block.byteLength ? packed[b]! : block));
  const total = streams.reduce((n, s) => n + 4 + s.byteLength, BLOSC_HEADER_BYTES + 4 * nblocks);
  if (total >= BLOSC_HEADER_BYTES + src.byteLength) return encodeStoredBloscFrame(src, typesize);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  writeHeader(out, (typesize > 1 ? FLAG_SHUFFLE : 0) | FLAG_DONT_SPLIT | (CODEC_LZ4 << 5), typesize, src.byteLength, plan.blocksize, total);
  let pos = BLOSC_HEADER_BYTES + 4 * nblocks;
  streams.forEach((stream, b) => {
    view.setInt32(BLOSC_HEADER_BYTES + 4 * b, pos, true);
    view.setInt32(pos, stream.byteLength, true);
    out.set(stream, pos + 4);
    pos += 4 + stream.byteLength;
  });
  return out;
}

/**
 * Encodes `src` as one Blosc1 frame. LZ4 frames shuffle each block by `typesize` and compress it as
 * one stream ("don't split"); a block that does not shrink is kept raw, and a frame that would not
 * be smaller than a stored one is written stored, as c-blosc does.
 */
export function encodeBloscFrame(src: Uint8Array, opts: BloscEncodeOptions): Uint8Array {
  const { typesize, compression } = opts;
  if (compression === 'none' || src.byteLength === 0) return encodeStoredBloscFrame(src, typesize);
  const plan = planFrame(src, typesize, opts.blocksize ?? DEFAULT_BLOSC_BLOCKSIZE);
  return assembleFrame(src, typesize, plan, plan.blocks.map(compressLz4Block));
}

/** {@link encodeBloscFrame} with the blocks compressed in parallel on libuv's thread pool. */
export async function encodeBloscFrameAsync(src: Uint8Array, opts: BloscEncodeOptions): Promise<Uint8Array> {
  const { typesize, compression } = opts;
  if (compression === 'none' || src.byteLength === 0) return encodeStoredBloscFrame(src, typesize);
  const plan = planFrame(src, typesize, opts.blocksize ?? DEFAULT_BLOSC_BLOCKSIZE);
  return assembleFrame(src, typesize, plan, await Promise.all(plan.blocks.map(compressLz4BlockAsync)));
}

/** What a frame header says. */
export interface BloscHeader {
  flags: number;
  typesize: number;
  nbytes: number;
  blocksize: number;
  cbytes: number;
}

/** Parses the 16-byte header. @throws {PipelineError} PIPELINE_CACHE_INVALID when the frame is too short or has an unknown version */
export function readBloscHeader(frame: Uint8Array): BloscHeader {
  if (frame.byteLength < BLOSC_HEADER_BYTES) throw new PipelineError('PIPELINE_CACHE_INVALID', `blosc frame of ${frame.byteLength} bytes is shorter than its header`);
  if (frame[0]! > VERSION_FORMAT || frame[0] === 0) throw new PipelineError('PIPELINE_CACHE_INVALID', `unsupported blosc format version ${frame[0]}`);
  const view = new DataView(frame.buffer, frame.byteOffset, BLOSC_HEADER_BYTES);
  return {
    flags: frame[2]!,
    typesize: frame[3]!,
    nbytes: view.getUint32(4, true),
    blocksize: view.getUint32(8, true),
    cbytes: view.getUint32(12, true),
  };
}

/**
 * Decodes one Blosc1 frame: stored frames, and LZ4 frames with or without byte shuffle, split or
 * not (Levanter's own caches use split blocks).
 * @throws {PipelineError} PIPELINE_CACHE_INVALID when the frame is truncated, corrupt or uses a codec other than LZ4;
 * the LZ4 decoder's own error for a corrupt block
 */
export function decodeBloscFrame(frame: Uint8Array): Uint8Array {
  const h = readBloscHeader(frame);
  if (h.cbytes > frame.byteLength) throw new PipelineError('PIPELINE_CACHE_INVALID', `blosc frame says ${h.cbytes} bytes, only ${frame.byteLength} present`);
  if (h.flags & FLAG_MEMCPYED) {
    if (BLOSC_HEADER_BYTES + h.nbytes > frame.byteLength) throw new PipelineError('PIPELINE_CACHE_INVALID', 'stored blosc frame is truncated');
    return frame.slice(BLOSC_HEADER_BYTES, BLOSC_HEADER_BYTES + h.nbytes);
  }
  const codec = h.flags >> 5;
  if (codec !== CODEC_LZ4) throw new PipelineError('PIPELINE_CACHE_INVALID', `blosc codec ${codec} is not supported (only lz4)`);
  if (h.flags & FLAG_BITSHUFFLE) throw new PipelineError('PIPELINE_CACHE_INVALID', 'blosc bit shuffle is not supported');
  if (h.blocksize <= 0) throw new PipelineError('PIPELINE_CACHE_INVALID', 'blosc frame has a zero block size');
  const dontSplit = (h.flags & FLAG_DONT_SPLIT) !== 0;
  const unshuffle = (h.flags & FLAG_SHUFFLE) !== 0 && h.typesize > 1;
  const out = new Uint8Array(h.nbytes);
  const scratch = unshuffle ? new Uint8Array(h.blocksize) : null;
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const nblocks = Math.ceil(h.nbytes / h.blocksize);
  for (let b = 0; b < nblocks; b++) {
    const start = b * h.blocksize;
    const bsize = Math.min(h.blocksize, h.nbytes - start);
    const leftover = bsize < h.blocksize;
    const split = !dontSplit && !leftover && h.typesize <= MAX_SPLITS && Math.floor(bsize / h.typesize) >= MIN_SPLIT_ELEMENTS;
    const nsplits = split ? h.typesize : 1;
    const neblock = Math.floor(bsize / nsplits);
    const target = scratch ? scratch.subarray(0, bsize) : out.subarray(start, start + bsize);
    let pos = view.getInt32(BLOSC_HEADER_BYTES + 4 * b, true);
    for (let s = 0; s < nsplits; s++) {
      const cbytes = view.getInt32(pos, true);
      pos += 4;
      const dst = target.subarray(s * neblock, (s + 1) * neblock);
      if (cbytes === neblock) dst.set(frame.subarray(pos, pos + cbytes));
      else if (cbytes < 0) dst.fill(-cbytes & 0xff); // a run of one byte value (newer c-blosc)
      else dst.set(decompressLz4Block(frame.subarray(pos, pos + cbytes), neblock));
      pos += Math.max(cbytes, 0);
    }
    if (scratch) unshuffleBytes(scratch.subarray(0, bsize), h.typesize, out.subarray(start, start + bsize));
  }
  return out;
}
