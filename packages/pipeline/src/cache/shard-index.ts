import { crc32c } from '@node-rs/crc32';
import { PipelineError } from '../errors.js';

/**
 * The index at the end of a zarr v3 shard file: one (u64 offset, u64 nbytes) little-endian pair per
 * inner chunk, then the CRC32C of those bytes (u32le). An absent chunk is (2^64-1, 2^64-1) and
 * reads as the fill value.
 */
export interface ShardIndexEntry {
  offset: number;
  nbytes: number;
}

const ABSENT = 0xffff_ffff;

/** Bytes of the index of a shard with `chunks` inner chunks (entries plus checksum). */
export function shardIndexBytes(chunks: number): number {
  return chunks * 16 + 4;
}

/** Encodes the index; `null` entries are absent chunks. */
export function encodeShardIndex(entries: readonly (ShardIndexEntry | null)[]): Uint8Array {
  const out = new Uint8Array(shardIndexBytes(entries.length));
  const view = new DataView(out.buffer);
  entries.forEach((e, i) => {
    const p = i * 16;
    if (e === null) {
      view.setUint32(p, ABSENT, true);
      view.setUint32(p + 4, ABSENT, true);
      view.setUint32(p + 8, ABSENT, true);
      view.setUint32(p + 12, ABSENT, true);
    } else {
      view.setBigUint64(p, BigInt(e.offset), true);
      view.setBigUint64(p + 8, BigInt(e.nbytes), true);
    }
  });
  view.setUint32(entries.length * 16, crc32c(out.subarray(0, entries.length * 16)), true);
  return out;
}

/**
 * Decodes and checks an index of `chunks` entries.
 * @throws {PipelineError} PIPELINE_CACHE_INVALID when the checksum does not match or an entry points outside the shard
 */
export function decodeShardIndex(bytes: Uint8Array, chunks: number, shardBytes: number): (ShardIndexEntry | null)[] {
  if (bytes.byteLength !== shardIndexBytes(chunks)) throw new PipelineError('PIPELINE_CACHE_INVALID', `shard index has ${bytes.byteLength} bytes, expected ${shardIndexBytes(chunks)}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stored = view.getUint32(chunks * 16, true);
  const actual = crc32c(bytes.subarray(0, chunks * 16));
  if (stored !== actual) throw new PipelineError('PIPELINE_CACHE_INVALID', `shard index checksum mismatch (stored ${stored.toString(16)}, computed ${actual.toString(16)})`);
  const entries: (ShardIndexEntry | null)[] = [];
  for (let i = 0; i < chunks; i++) {
    const p = i * 16;
    if (view.getUint32(p, true) === ABSENT && view.getUint32(p + 4, true) === ABSENT) {
      entries.push(null);
      continue;
    }
    const offset = Number(view.getBigUint64(p, true));
    const nbytes = Number(view.getBigUint64(p + 8, true));
    if (offset + nbytes > shardBytes) throw new PipelineError('PIPELINE_CACHE_INVALID', `shard index entry ${i} (${offset}+${nbytes}) points past the end of the shard (${shardBytes} bytes)`);
    entries.push({ offset, nbytes });
  }
  return entries;
}
