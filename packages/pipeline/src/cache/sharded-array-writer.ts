import { createWriteStream, writeText } from '@marin/rigging';
import { PipelineError } from '../errors.js';
import { encodeBloscFrameAsync } from './blosc-frame.js';
import type { BloscCompression } from './blosc-frame.js';
import { encodeShardIndex } from './shard-index.js';
import type { ShardIndexEntry } from './shard-index.js';
import { StreamSink } from './stream-sink.js';
import { CHUNKS_PER_SHARD, INNER_CHUNK_ELEMENTS, dtypeBytes, zarrArrayMetadata } from './zarr-array-metadata.js';
import type { ArrayDtype } from './zarr-array-metadata.js';

/** Options of {@link ShardedArrayWriter.create}. */
export interface ShardedArrayWriterOptions {
  /** Element type written to `zarr.json` and to the chunks. */
  dtype: ArrayDtype;
  /** Blosc payload of each inner chunk. */
  compression: BloscCompression;
  /**
   * Blosc block size in bytes (LZ4 only).
   * @default 262144
   */
  blocksize?: number;
  /**
   * Keep the first inner chunk in memory until `finish`, so elements in it can still be `patch`ed
   * (the jagged array's row count lives in element 0 of its offsets).
   * @default false
   */
  holdFirstChunk?: boolean;
}

interface OpenShard {
  sink: StreamSink;
  bytes: number;
  entries: (ShardIndexEntry | null)[];
}

const TWO_32 = 4_294_967_296;

/**
 * Streams one 1-D zarr v3 array in Levanter's sharded layout to `<url>/zarr.json` and `<url>/c/<k>`.
 * Memory is one inner chunk (two with `holdFirstChunk`); each shard file is written through a temp
 * name and appears complete or not at all. Every written inner chunk is full length (zero padded).
 */
export class ShardedArrayWriter {
  private chunk: Uint8Array;
  private words: Int32Array;
  private fill = 0;
  private chunkIndex = 0;
  private held: Uint8Array | null = null;
  private readonly shards = new Map<number, OpenShard>();
  private closed = false;

  private constructor(
    readonly url: string,
    private readonly opts: ShardedArrayWriterOptions,
  ) {
    this.chunk = new Uint8Array(INNER_CHUNK_ELEMENTS * dtypeBytes(opts.dtype));
    this.words = new Int32Array(this.chunk.buffer);
  }

  /** A writer for the array at `url` (a directory URL on any rigging filesystem). */
  static create(url: string, opts: ShardedArrayWriterOptions): ShardedArrayWriter {
    return new ShardedArrayWriter(url.replace(/\/+$/, ''), opts);
  }

  /** Elements appended so far. */
  get length(): number {
    return this.chunkIndex * INNER_CHUNK_ELEMENTS + this.fill;
  }

  /**
   * Appends integer elements (int32 range for int32 arrays, safe integers for int64).
   * @throws RangeError when a value does not fit the dtype
   */
  async append(values: ArrayLike<number>): Promise<void> {
    this.assertOpen();
    const wide = this.opts.dtype === 'int64';
    let i = 0;
    while (i < values.length) {
      const take = Math.min(values.length - i, INNER_CHUNK_ELEMENTS - this.fill);
      const words = this.words;
      if (values instanceof Int32Array) {
        // Fast path for token rows: every value already fits, so no per-element checks.
        const src = values.subarray(i, i + take);
        if (!wide) words.set(src, this.fill);
        else for (let k = 0, p = 2 * this.fill; k < take; k++, p += 2) (words[p] = src[k]!), (words[p + 1] = src[k]! >> 31);
      } else if (wide) {
        for (let k = 0; k < take; k++) {
          const v = values[i + k]!;
          if (!Number.isSafeInteger(v)) throw new RangeError(`${v} is not a safe integer`);
          const hi = Math.floor(v / TWO_32);
          const p = 2 * (this.fill + k);
          words[p] = (v - hi * TWO_32) | 0;
          words[p + 1] = hi | 0;
        }
      } else {
        for (let k = 0; k < take; k++) {
          const v = values[i + k]!;
          if ((v | 0) !== v) throw new RangeError(`${v} does not fit in int32`);
          words[this.fill + k] = v;
        }
      }
      this.fill += take;
      i += take;
      if (this.fill === INNER_CHUNK_ELEMENTS) await this.flushChunk();
    }
  }

  /**
   * Overwrites element `index`, which must lie in the held first chunk.
   * @throws RangeError when the chunk was not held or `index` is outside it
   */
  patch(index: number, value: number): void {
    this.assertOpen();
    const target = index < INNER_CHUNK_ELEMENTS && this.chunkIndex === 0 ? this.chunk : this.held;
    if (!this.opts.holdFirstChunk || index < 0 || index >= INNER_CHUNK_ELEMENTS || index >= this.length || target === null) {
      throw new RangeError(`element ${index} cannot be patched (only written elements of a held first chunk can)`);
    }
    const view = new DataView(target.buffer, target.byteOffset, target.byteLength);
    if (this.opts.dtype === 'int64') view.setBigInt64(index * 8, BigInt(value), true);
    else view.setInt32(index * 4, value, true);
  }

  /** Writes the last chunk, every shard's index, then `zarr.json`; returns the element count. */
  async finish(): Promise<number> {
    this.assertOpen();
    const length = this.length;
    try {
      if (this.fill > 0) {
        this.chunk.fill(0, this.fill * dtypeBytes(this.opts.dtype));
        await this.flushChunk();
      }
      if (this.held !== null) {
        await this.writeChunk(0, this.held);
        this.held = null;
      }
      for (const shard of [...this.shards.keys()]) await this.closeShard(shard);
      await writeText(`${this.url}/zarr.json`, `${JSON.stringify(zarrArrayMetadata(this.opts.dtype), null, 2)}\n`);
    } catch (e) {
      this.abort();
      throw e;
    }
    this.closed = true;
    return length;
  }

  /** Drops every unfinished shard file (nothing partial is left behind). */
  abort(): void {
    this.closed = true;
    for (const shard of this.shards.values()) shard.sink.abort();
    this.shards.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new PipelineError('PIPELINE_WRITER_CLOSED', `array writer for "${this.url}" is already finished`, { details: { path: this.url } });
  }

  private async flushChunk(): Promise<void> {
    const index = this.chunkIndex;
    if (index === 0 && this.opts.holdFirstChunk) {
      this.held = this.chunk;
      this.chunk = new Uint8Array(this.held.byteLength);
      this.words = new Int32Array(this.chunk.buffer);
    } else {
      await this.writeChunk(index, this.chunk);
    }
    this.chunkIndex++;
    this.fill = 0;
    // A shard is complete once its last chunk is written, unless it still waits for the held chunk.
    const shard = Math.floor(index / CHUNKS_PER_SHARD);
    if ((index + 1) % CHUNKS_PER_SHARD === 0 && !(shard === 0 && this.held !== null)) await this.closeShard(shard);
  }

  private async writeChunk(index: number, raw: Uint8Array): Promise<void> {
    const frame = await encodeBloscFrameAsync(raw, {
      typesize: dtypeBytes(this.opts.dtype),
      compression: this.opts.compression,
      ...(this.opts.blocksize !== undefined ? { blocksize: this.opts.blocksize } : {}),
    });
    const shardNo = Math.floor(index / CHUNKS_PER_SHARD);
    let shard = this.shards.get(shardNo);
    if (shard === undefined) {
      shard = { sink: new StreamSink(await createWriteStream(`${this.url}/c/${shardNo}`)), bytes: 0, entries: new Array<null>(CHUNKS_PER_SHARD).fill(null) };
      this.shards.set(shardNo, shard);
    }
    shard.entries[index % CHUNKS_PER_SHARD] = { offset: shard.bytes, nbytes: frame.byteLength };
    shard.bytes += frame.byteLength;
    await shard.sink.write(frame);
  }

  private async closeShard(shardNo: number): Promise<void> {
    const shard = this.shards.get(shardNo);
    if (shard === undefined) return;
    await shard.sink.write(encodeShardIndex(shard.entries));
    await shard.sink.close();
    this.shards.delete(shardNo);
  }
}
