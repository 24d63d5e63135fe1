import { RiggingError, readText, size } from '@marin/rigging';
import { PipelineError } from '../errors.js';
import { decodeBloscFrame } from './blosc-frame.js';
import { readRange } from './read-range.js';
import { decodeShardIndex, shardIndexBytes } from './shard-index.js';
import type { ShardIndexEntry } from './shard-index.js';
import { dtypeBytes, parseZarrArrayMetadata } from './zarr-array-metadata.js';
import type { ZarrArrayLayout } from './zarr-array-metadata.js';

const TWO_32 = 4_294_967_296;
/** Decoded inner chunks kept per array: enough for sequential windows and row-by-row reads. */
const CHUNK_CACHE_SIZE = 4;

function invalid(url: string, what: string, cause: unknown): PipelineError {
  return new PipelineError('PIPELINE_CACHE_INVALID', `${what} "${url}" is malformed`, { cause });
}

/**
 * Random-access reads of one 1-D zarr v3 array in Levanter's sharded layout: checks each shard
 * index's CRC32C, decodes stored and LZ4 Blosc frames (split or not, shuffled or not) and reads
 * absent chunks and missing shard files as zeros.
 */
export class ShardedArrayReader {
  private readonly shardIndexes = new Map<number, Promise<(ShardIndexEntry | null)[] | null>>();
  private readonly chunks = new Map<number, Promise<Uint8Array | null>>();

  private constructor(
    readonly url: string,
    readonly layout: ZarrArrayLayout,
  ) {}

  /**
   * Opens the array at `url` by reading its `zarr.json`.
   * @throws {PipelineError} PIPELINE_CACHE_INVALID when `zarr.json` is missing or describes another layout
   */
  static async open(url: string): Promise<ShardedArrayReader> {
    const base = url.replace(/\/+$/, '');
    const metaUrl = `${base}/zarr.json`;
    let text: string;
    try {
      text = await readText(metaUrl);
    } catch (e) {
      throw new PipelineError('PIPELINE_CACHE_INVALID', `array metadata "${metaUrl}" cannot be read`, { cause: e });
    }
    try {
      return new ShardedArrayReader(base, parseZarrArrayMetadata(JSON.parse(text)));
    } catch (e) {
      throw invalid(metaUrl, 'array metadata', e);
    }
  }

  /** The stored element type. */
  get dtype(): 'int32' | 'int64' {
    return this.layout.dtype;
  }

  /**
   * Elements `[start, end)` as int32 (int64 arrays are narrowed; every value must fit).
   * @throws {PipelineError} PIPELINE_CACHE_INVALID when a shard is corrupt or a value does not fit
   */
  async readInt32(start: number, end: number): Promise<Int32Array> {
    const out = new Int32Array(Math.max(0, end - start));
    await this.forEachPiece(start, end, (words, from, count, at) => {
      if (this.layout.dtype === 'int32') {
        out.set(words.subarray(from, from + count), at);
        return;
      }
      for (let k = 0; k < count; k++) {
        const lo = words[2 * (from + k)]!;
        if (words[2 * (from + k) + 1] !== lo >> 31) {
          throw new PipelineError('PIPELINE_CACHE_INVALID', `"${this.url}" holds a value outside the int32 range at element ${start + at + k}`);
        }
        out[at + k] = lo;
      }
    });
    return out;
  }

  /**
   * Elements `[start, end)` as numbers (exact up to 2^53); used for offsets.
   * @throws {PipelineError} PIPELINE_CACHE_INVALID when a shard is corrupt
   */
  async readNumbers(start: number, end: number): Promise<Float64Array> {
    const out = new Float64Array(Math.max(0, end - start));
    await this.forEachPiece(start, end, (words, from, count, at) => {
      if (this.layout.dtype === 'int32') {
        for (let k = 0; k < count; k++) out[at + k] = words[from + k]!;
        return;
      }
      for (let k = 0; k < count; k++) out[at + k] = words[2 * (from + k) + 1]! * TWO_32 + (words[2 * (from + k)]! >>> 0);
    });
    return out;
  }

  private async forEachPiece(start: number, end: number, use: (words: Int32Array, from: number, count: number, at: number) => void): Promise<void> {
    const per = this.layout.innerChunkElements;
    let pos = start;
    while (pos < end) {
      const chunkNo = Math.floor(pos / per);
      const from = pos - chunkNo * per;
      const count = Math.min(end - pos, per - from);
      const raw = await this.chunk(chunkNo);
      // An absent chunk reads as the fill value 0, which the zero-initialised output already holds.
      if (raw !== null) use(new Int32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4), from, count, pos - start);
      pos += count;
    }
  }

  private chunk(chunkNo: number): Promise<Uint8Array | null> {
    let p = this.chunks.get(chunkNo);
    if (p === undefined) {
      p = this.loadChunk(chunkNo);
      this.chunks.set(chunkNo, p);
      p.catch(() => this.chunks.delete(chunkNo));
      if (this.chunks.size > CHUNK_CACHE_SIZE) this.chunks.delete(this.chunks.keys().next().value!);
    } else {
      // Refresh its place in the insertion-ordered map (least recently used goes first).
      this.chunks.delete(chunkNo);
      this.chunks.set(chunkNo, p);
    }
    return p;
  }

  private async loadChunk(chunkNo: number): Promise<Uint8Array | null> {
    const perShard = this.layout.shardElements / this.layout.innerChunkElements;
    const shardNo = Math.floor(chunkNo / perShard);
    const index = await this.shardIndex(shardNo);
    const entry = index?.[chunkNo % perShard] ?? null;
    if (entry === null) return null;
    const url = `${this.url}/c/${shardNo}`;
    const frame = await readRange(url, entry.offset, entry.offset + entry.nbytes);
    let raw: Uint8Array;
    try {
      raw = decodeBloscFrame(frame);
    } catch (e) {
      throw invalid(url, `inner chunk ${chunkNo % perShard} of shard`, e);
    }
    const expected = this.layout.innerChunkElements * dtypeBytes(this.layout.dtype);
    if (raw.byteLength !== expected) throw invalid(url, `inner chunk ${chunkNo % perShard} of shard`, new Error(`decoded ${raw.byteLength} bytes, expected ${expected}`));
    // Int32Array views need 4-byte alignment.
    return raw.byteOffset % 4 === 0 ? raw : raw.slice();
  }

  private shardIndex(shardNo: number): Promise<(ShardIndexEntry | null)[] | null> {
    let p = this.shardIndexes.get(shardNo);
    if (p === undefined) {
      p = this.loadShardIndex(shardNo);
      this.shardIndexes.set(shardNo, p);
      p.catch(() => this.shardIndexes.delete(shardNo));
    }
    return p;
  }

  private async loadShardIndex(shardNo: number): Promise<(ShardIndexEntry | null)[] | null> {
    const url = `${this.url}/c/${shardNo}`;
    let bytes: number;
    try {
      bytes = await size(url);
    } catch (e) {
      if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return null; // a missing shard reads as zeros
      throw e;
    }
    const chunks = this.layout.shardElements / this.layout.innerChunkElements;
    const indexBytes = shardIndexBytes(chunks);
    if (bytes < indexBytes) throw invalid(url, 'shard', new Error(`${bytes} bytes cannot hold a ${indexBytes}-byte index`));
    try {
      return decodeShardIndex(await readRange(url, bytes - indexBytes, bytes), chunks, bytes - indexBytes);
    } catch (e) {
      throw invalid(url, 'index of shard', e);
    }
  }
}
