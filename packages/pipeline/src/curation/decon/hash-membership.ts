import { PipelineError } from '../../errors.js';
import type { FeatureHash } from './feature-hash.js';

/** A set of 64-bit feature hashes that answers membership: exact, or a Bloom filter (false positives, never false negatives). */
export interface HashMembership {
  readonly kind: 'exact' | 'bloom';
  /** Distinct hashes added (exact), or hashes added (Bloom). */
  readonly count: number;
  add(h: FeatureHash): void;
  has(h: FeatureHash): boolean;
  /** A portable byte form; {@link deserializeHashMembership} reads it back. */
  serialize(): Uint8Array;
}

const MAGIC = 0x4d484d31; // "MHM1"

function slot(hi: number, lo: number): number {
  return (Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) ^ (hi >>> 7)) >>> 0;
}

/** An exact set of 64-bit hashes: open addressing over two Uint32Arrays, 8 bytes per slot at most half full. */
export class ExactHashSet implements HashMembership {
  readonly kind = 'exact';
  private hi: Uint32Array;
  private lo: Uint32Array;
  private used: Uint8Array;
  private size = 0;

  constructor(capacity = 1024) {
    let cap = 16;
    while (cap < capacity * 2) cap *= 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.used = new Uint8Array(cap);
  }

  get count(): number {
    return this.size;
  }

  add(h: FeatureHash): void {
    if ((this.size + 1) * 2 > this.used.length) this.rehash(this.used.length * 2);
    const mask = this.used.length - 1;
    let i = slot(h.hi, h.lo) & mask;
    while (this.used[i] === 1) {
      if (this.hi[i] === h.hi && this.lo[i] === h.lo) return;
      i = (i + 1) & mask;
    }
    this.used[i] = 1;
    this.hi[i] = h.hi;
    this.lo[i] = h.lo;
    this.size++;
  }

  has(h: FeatureHash): boolean {
    const mask = this.used.length - 1;
    let i = slot(h.hi, h.lo) & mask;
    while (this.used[i] === 1) {
      if (this.hi[i] === h.hi && this.lo[i] === h.lo) return true;
      i = (i + 1) & mask;
    }
    return false;
  }

  /** Every hash in the set (slot order). */
  *values(): IterableIterator<FeatureHash> {
    for (let i = 0; i < this.used.length; i++) if (this.used[i] === 1) yield { hi: this.hi[i] as number, lo: this.lo[i] as number };
  }

  serialize(): Uint8Array {
    const words = new Uint32Array(4 + this.size * 2);
    words[0] = MAGIC;
    words[1] = 1; // kind: exact
    words[2] = this.size;
    let j = 4;
    for (const h of this.values()) {
      words[j++] = h.hi;
      words[j++] = h.lo;
    }
    return new Uint8Array(words.buffer);
  }

  private rehash(capacity: number): void {
    const old = [...this.values()];
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.used = new Uint8Array(capacity);
    this.size = 0;
    for (const h of old) this.add(h);
  }
}

/** A Bloom filter over 64-bit hashes: `k` bit positions by double hashing (`lo + i·hi mod m`). */
export class BloomFilter implements HashMembership {
  readonly kind = 'bloom';
  readonly bits: number;
  readonly hashes: number;
  private readonly words: Uint32Array;
  private added = 0;

  /** A filter sized for `expectedCount` hashes at `falsePositiveRate`. */
  static forCount(expectedCount: number, falsePositiveRate: number): BloomFilter {
    const n = Math.max(1, expectedCount);
    const m = Math.max(64, Math.ceil((-n * Math.log(falsePositiveRate)) / Math.LN2 ** 2));
    const k = Math.min(64, Math.max(1, Math.round((m / n) * Math.LN2)));
    return new BloomFilter(m, k);
  }

  constructor(bits: number, hashes: number, words?: Uint32Array, added = 0) {
    this.bits = bits;
    this.hashes = hashes;
    this.words = words ?? new Uint32Array(Math.ceil(bits / 32));
    this.added = added;
  }

  get count(): number {
    return this.added;
  }

  add(h: FeatureHash): void {
    const step = (h.hi | 1) >>> 0;
    for (let i = 0; i < this.hashes; i++) {
      const bit = (h.lo + i * step) % this.bits;
      this.words[bit >>> 5] = (this.words[bit >>> 5] as number) | (1 << (bit & 31));
    }
    this.added++;
  }

  has(h: FeatureHash): boolean {
    const step = (h.hi | 1) >>> 0;
    for (let i = 0; i < this.hashes; i++) {
      const bit = (h.lo + i * step) % this.bits;
      if (((this.words[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  serialize(): Uint8Array {
    const out = new Uint32Array(4 + this.words.length);
    out[0] = MAGIC;
    out[1] = 2; // kind: bloom
    out[2] = this.bits;
    out[3] = this.hashes;
    out.set(this.words, 4);
    return new Uint8Array(out.buffer);
  }
}

/**
 * Reads a {@link HashMembership} written by `serialize()`.
 * @throws {PipelineError} PIPELINE_INPUT_INVALID when the bytes are not one (wrong magic, truncated)
 */
export function deserializeHashMembership(bytes: Uint8Array, source: string): HashMembership {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  if (aligned.byteLength < 16 || aligned.byteLength % 4 !== 0) throw invalid(source);
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
  if (words[0] !== MAGIC) throw invalid(source);
  if (words[1] === 1) {
    const n = words[2] as number;
    if (words.length !== 4 + n * 2) throw invalid(source);
    const set = new ExactHashSet(n);
    for (let i = 0; i < n; i++) set.add({ hi: words[4 + 2 * i] as number, lo: words[5 + 2 * i] as number });
    return set;
  }
  if (words[1] === 2) {
    const bits = words[2] as number;
    if (words.length !== 4 + Math.ceil(bits / 32)) throw invalid(source);
    return new BloomFilter(bits, words[3] as number, words.slice(4));
  }
  throw invalid(source);
}

function invalid(source: string): PipelineError {
  return new PipelineError('PIPELINE_INPUT_INVALID', `"${source}" is not an eval hash filter written by this package; rebuild the eval filter`, { details: { path: source } });
}

/** How {@link createEvalHashFilter} chooses between an exact set and a Bloom filter. */
export interface EvalHashFilterOptions {
  /** Up to this many distinct hashes the filter is an exact set (8 bytes per slot); beyond, a Bloom filter. @default 4000000 */
  exactSetMaxHashes?: number;
  /** False-positive rate of the Bloom filter (Marin's default). @default 1e-9 */
  falsePositiveRate?: number;
  /**
   * Hashes the Bloom filter is sized for (Marin's `estimated_doc_count`), when more than twice what switched it on:
   * size it for the whole eval suite, or later additions raise its false-positive rate. @default 1000000
   */
  expectedHashes?: number;
}

/**
 * A growing eval-hash filter that is an exact set while small and turns into a Bloom filter past
 * `exactSetMaxHashes` (re-adding what it held), so a small eval suite never sees a false positive and a huge one
 * stays in bounded memory.
 */
export class EvalHashFilter implements HashMembership {
  private inner: HashMembership = new ExactHashSet();
  private readonly max: number;
  private readonly fpr: number;
  private readonly expected: number;

  constructor(options: EvalHashFilterOptions = {}) {
    this.max = options.exactSetMaxHashes ?? 4_000_000;
    this.fpr = options.falsePositiveRate ?? 1e-9;
    this.expected = options.expectedHashes ?? 1_000_000;
  }

  get kind(): 'exact' | 'bloom' {
    return this.inner.kind;
  }

  get count(): number {
    return this.inner.count;
  }

  add(h: FeatureHash): void {
    this.inner.add(h);
    if (this.inner instanceof ExactHashSet && this.inner.count > this.max) {
      const bloom = BloomFilter.forCount(Math.max(this.expected, this.inner.count * 2), this.fpr);
      for (const v of this.inner.values()) bloom.add(v);
      this.inner = bloom;
    }
  }

  has(h: FeatureHash): boolean {
    return this.inner.has(h);
  }

  serialize(): Uint8Array {
    return this.inner.serialize();
  }
}
