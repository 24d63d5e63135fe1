import { ByteWriter } from 'hyparquet-writer';
import type { ChunkSink } from './plain-string-column.js';

const CHUNK_BYTES = 1 << 20;

// Output buffers of CHUNK_BYTES that every stream has finished writing, reused by the next writer
// buffer instead of a fresh allocation (a part's output is otherwise allocated once more, and fresh
// external memory drives V8's garbage collections). At most POOL_CHUNKS are kept: about one row group's
// output (a 64 MiB group of text is ~25 MiB of zstd), which is laid out in full before any of it is
// written, so the next group takes the last one's buffers (with 8 kept, two thirds of every group's
// output was fresh memory, faulted in page by page).
const POOL_CHUNKS = 32;
const chunkPool: ArrayBuffer[] = [];

function takeChunk(): ArrayBuffer {
  return chunkPool.pop() ?? uninitialized(CHUNK_BYTES);
}

/** A buffer of its own, not zero-filled (every byte of it is written before it is read). */
function uninitialized(size: number): ArrayBuffer {
  return Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer;
}

function recycleChunk(buffer: ArrayBuffer): void {
  if (buffer.byteLength === CHUNK_BYTES && chunkPool.length < POOL_CHUNKS) chunkPool.push(buffer);
}

/**
 * hyparquet-writer's byte writer, made to set written bytes aside as views (never overwritten) instead
 * of growing one buffer to the row group's size (its own `ensure` doubles and copies); the parquet part
 * writer streams the views out after each row group. A full buffer goes back to a shared pool once every
 * segment cut from it has been written, when `recycles` (local files, whose stream calls back once the
 * bytes are in the file; an object store's upload stream may call back while it still holds the chunk).
 *
 * A subclass rather than an `ensure` assigned onto each instance: every writer then shares one map and
 * one `ensure`, so hyparquet-writer's hot `append*` methods are compiled once per process, not
 * deoptimized for each part written.
 */
export class SegmentedByteWriter extends ByteWriter implements ChunkSink {
  /** Scratch page of writePlainStringChunk. */
  scratch: Buffer | null = null;
  /** Segments cut and not yet handed to the stream. */
  readonly chunks: Uint8Array[] = [];
  private segmentStart = 0;
  private readonly inFlight = new Map<ArrayBuffer, number>();
  private readonly retired = new Set<ArrayBuffer>();

  constructor(private readonly recycles: boolean) {
    super(0);
    this.buffer = takeChunk();
    this.view = new DataView(this.buffer);
  }

  get bytes(): ByteWriter {
    return this;
  }

  /** Sets the bytes written since the last cut aside as a segment. */
  cutSegment(): void {
    if (this.index > this.segmentStart) {
      this.chunks.push(new Uint8Array(this.buffer, this.segmentStart, this.index - this.segmentStart));
      if (this.recycles) this.inFlight.set(this.buffer, (this.inFlight.get(this.buffer) ?? 0) + 1);
    }
    this.segmentStart = this.index;
  }

  override ensure(size: number): void {
    if (this.index + size <= this.buffer.byteLength) return;
    this.cutSegment();
    if (this.inFlight.has(this.buffer)) this.retired.add(this.buffer);
    else if (this.recycles) recycleChunk(this.buffer);
    this.buffer = size <= CHUNK_BYTES ? takeChunk() : uninitialized(size);
    this.view = new DataView(this.buffer);
    this.index = 0;
    this.segmentStart = 0;
  }

  appendOwned(data: Uint8Array): void {
    this.cutSegment();
    this.chunks.push(data);
    this.offset += data.byteLength;
  }

  /** Called back by the stream once a segment cut from `buffer` is written. */
  released(buffer: ArrayBufferLike): void {
    const key = buffer as ArrayBuffer;
    const n = (this.inFlight.get(key) ?? 0) - 1;
    if (n > 0) {
      this.inFlight.set(key, n);
      return;
    }
    this.inFlight.delete(key);
    if (this.retired.delete(key)) recycleChunk(key);
  }

  /** Returns the current buffer to the pool once every write has called back. */
  releaseLast(): void {
    if (this.recycles && this.inFlight.size === 0) recycleChunk(this.buffer);
  }
}
