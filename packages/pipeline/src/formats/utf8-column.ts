import { isUtf8 } from 'node:buffer';

/**
 * A string column of one row group as Arrow lays it out: the UTF-8 bytes of every value back to back
 * and `length + 1` offsets into them, with no JavaScript string or object per value. Value `i` is
 * `bytes[offsets[i] .. offsets[i + 1])`; a null is an empty value whose `valid[i]` is 0.
 */
export interface Utf8Column {
  /** Number of values (rows). */
  length: number;
  /** `length + 1` byte offsets into {@link bytes}, ascending; `offsets[0]` is 0. */
  offsets: Int32Array;
  /** The values' UTF-8 bytes, concatenated (checked to be valid UTF-8 value by value). */
  bytes: Uint8Array;
  /** One byte per value, 1 when present and 0 when null; `null` when the column has no null. */
  valid: Uint8Array | null;
}

/** Value `i` of `column` as a view of its bytes (empty for a null: check {@link Utf8Column.valid}). */
export function utf8ValueAt(column: Utf8Column, i: number): Uint8Array {
  return column.bytes.subarray(column.offsets[i] as number, column.offsets[i + 1] as number);
}

/** Value `i` of `column` decoded into a string, or `null` for a null. */
export function utf8StringAt(column: Utf8Column, i: number): string | null {
  if (column.valid !== null && column.valid[i] === 0) return null;
  const { bytes } = column;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', column.offsets[i] as number, column.offsets[i + 1] as number);
}

/** The default size of a {@link Utf8Arena}'s buffers. */
const ARENA_CHUNK_BYTES = 256 * 1024 * 1024;

/**
 * Memory for the bytes of many columns that are all kept (a task holding every text of its input until
 * it sorts them): handed out from a few large buffers instead of one buffer per row group. V8 starts a
 * major garbage collection each time its external memory grows by about 64 MiB since the last one, and
 * each one marks the whole heap of buffered records; fewer, larger buffers start fewer. A buffer's pages
 * are only faulted in as they are written, so an unused tail costs address space, not memory. A region
 * taken from an arena stays alive as long as its buffer does, that is as long as any column of that
 * buffer is referenced: use it only where the columns live about as long as each other.
 */
export class Utf8Arena {
  private chunk: Uint8Array = new Uint8Array(0);
  private used = 0;

  /** `chunkBytes`: the size of each buffer; a region larger than a quarter of it gets a buffer of its own. */
  constructor(private readonly chunkBytes = ARENA_CHUNK_BYTES) {}

  /** A region of `size` bytes (uninitialized). */
  take(size: number): Uint8Array {
    if (size > this.chunkBytes >> 2) return Buffer.allocUnsafeSlow(size);
    if (this.used + size > this.chunk.byteLength) {
      this.chunk = Buffer.allocUnsafeSlow(this.chunkBytes);
      this.used = 0;
    }
    const region = this.chunk.subarray(this.used, this.used + size);
    this.used += size;
    return region;
  }

  /** `region` grown in place to `size` bytes when it is the last region taken and its buffer has room, else null. */
  extend(region: Uint8Array, size: number): Uint8Array | null {
    if (!this.isLast(region) || region.byteOffset + size > this.chunk.byteLength) return null;
    this.used = region.byteOffset + size;
    return this.chunk.subarray(region.byteOffset, this.used);
  }

  /** Gives back the bytes of `region` past its first `keep` when it is the last region taken (else does nothing). */
  trim(region: Uint8Array, keep: number): void {
    if (this.isLast(region)) this.used = region.byteOffset + keep;
  }

  private isLast(region: Uint8Array): boolean {
    return region.buffer === this.chunk.buffer && region.byteOffset + region.byteLength === this.used;
  }
}

/** Appends values to a growing {@link Utf8Column}. */
export class Utf8ColumnBuilder {
  private bytes: Uint8Array;
  private at = 0;
  private readonly offsets: Int32Array;
  private count = 0;
  private valid: Uint8Array | null = null;

  /**
   * `rows` values will be appended; `byteHint` is the expected total of their bytes (the buffer grows past
   * it). The buffers of `reuse`, a column no longer needed, are written over when they are large enough;
   * otherwise the bytes come from `arena` when given (and the unused rest goes back to it on {@link finish}).
   */
  constructor(
    private readonly rows: number,
    byteHint: number,
    reuse: Utf8Column | null = null,
    private readonly arena: Utf8Arena | null = null,
  ) {
    const offsets = reuse === null ? null : new Int32Array(reuse.offsets.buffer, reuse.offsets.byteOffset);
    this.offsets = offsets !== null && offsets.length >= rows + 1 ? offsets : new Int32Array(rows + 1);
    this.offsets[0] = 0;
    const bytes = reuse === null ? null : new Uint8Array(reuse.bytes.buffer, reuse.bytes.byteOffset);
    if (bytes !== null && bytes.byteLength >= byteHint) this.bytes = bytes;
    else this.bytes = arena === null ? Buffer.allocUnsafeSlow(Math.max(16, byteHint)) : arena.take(Math.max(16, byteHint));
  }

  get length(): number {
    return this.count;
  }

  private grow(extra: number): void {
    const need = this.at + extra;
    if (need > 0x7fffffff) throw new RangeError(`a row group's string column over 2 GiB (${need} bytes) cannot be read as one column`);
    const size = Math.min(0x7fffffff, Math.max(need, this.bytes.byteLength * 2));
    const grown = this.arena?.extend(this.bytes, size) ?? null;
    if (grown !== null) {
      this.bytes = grown;
      return;
    }
    const next = this.arena === null ? Buffer.allocUnsafeSlow(size) : this.arena.take(size);
    next.set(this.bytes.subarray(0, this.at));
    this.bytes = next;
  }

  private full(): never {
    throw new RangeError(`more values than the ${this.rows} rows of the row group`);
  }

  /** Appends the `len` bytes of `src` from `start`. */
  push(src: Uint8Array, start: number, len: number): void {
    if (this.count >= this.rows) this.full();
    if (this.at + len > this.bytes.byteLength) this.grow(len);
    const out = this.bytes;
    const at = this.at;
    // short values are copied by hand: a subarray per value costs more than the copy
    if (len <= 32) for (let k = 0; k < len; k++) out[at + k] = src[start + k] as number;
    else out.set(src.subarray(start, start + len), at);
    this.at = at + len;
    this.count += 1;
    this.offsets[this.count] = this.at;
  }

  /** Appends a null (an empty value marked invalid). */
  pushNull(): void {
    if (this.count >= this.rows) this.full();
    this.valid ??= new Uint8Array(this.rows).fill(1);
    this.valid[this.count] = 0;
    this.count += 1;
    this.offsets[this.count] = this.at;
  }

  /**
   * PLAIN-encoded BYTE_ARRAY values from `page` (`[4-byte little-endian length][bytes]` each): `count`
   * of them, or, with definition levels, one per level (a value where the level is `maxDefinition`, a
   * null elsewhere). Returns the end of the values in `page`.
   */
  pushPlain(page: Uint8Array, count: number, levels: Uint8Array | null, maxDefinition: number): number {
    let p = 0;
    const end = page.byteLength;
    const n = levels === null ? count : levels.length;
    for (let i = 0; i < n; i++) {
      if (levels !== null && levels[i] !== maxDefinition) {
        this.pushNull();
        continue;
      }
      if (p + 4 > end) throw new RangeError('PLAIN value runs past the end of its page');
      const len = ((page[p] as number) | ((page[p + 1] as number) << 8) | ((page[p + 2] as number) << 16) | ((page[p + 3] as number) << 24)) >>> 0;
      p += 4;
      if (p + len > end) throw new RangeError('PLAIN value runs past the end of its page');
      this.push(page, p, len);
      p += len;
    }
    return p;
  }

  /** The column built so far (its buffers are the builder's; append nothing after this). */
  finish(): Utf8Column {
    this.arena?.trim(this.bytes, this.at);
    return { length: this.count, offsets: this.offsets.subarray(0, this.count + 1), bytes: this.bytes.subarray(0, this.at), valid: this.valid?.subarray(0, this.count) ?? null };
  }
}

/**
 * True when every value of `column` is valid UTF-8: the whole buffer is (one SIMD pass), and no value
 * starts with a continuation byte, so no boundary splits a character and each value is whole characters.
 */
export function isUtf8Column(column: Utf8Column): boolean {
  const { bytes, offsets } = column;
  if (!isUtf8(bytes)) return false;
  const total = bytes.byteLength;
  for (let i = 1; i < column.length; i++) {
    const o = offsets[i] as number;
    if (o < total && ((bytes[o] as number) & 0xc0) === 0x80) return false;
  }
  return true;
}
