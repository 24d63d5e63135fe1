import type { MinHashParams } from './minhash-params.js';
import { fmix32, shingleHashes } from './shingles.js';

/**
 * The seeded permutations of one parameter set: permutation `i` maps a shingle hash `h` to
 * `fmix32(h * a[i] + b[i])`, a bijection of the 32-bit space (`a[i]` is odd). Signatures compare as signed 32-bit
 * integers, which is just another total order, so the minimum is still a min-wise hash.
 */
export interface MinHasher {
  readonly params: MinHashParams;
  /** Rows per LSH band (`num_perms / num_bands`). */
  readonly rowsPerBand: number;
  /** The signature of a text, or `null` when it has no shingles (empty after cleaning). */
  signature(text: string): Int32Array | null;
  /** The signature of a set of shingle hashes (as {@link shingleHashes} returns), or `null` for an empty set. */
  signatureOfHashes(hashes: Int32Array): Int32Array | null;
  /** The LSH bucket keys of a signature: one per band, 16 hex digits each. */
  buckets(signature: Int32Array): string[];
}

/** SplitMix32: the deterministic generator the permutation coefficients come from. */
function splitMix32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return (z ^ (z >>> 15)) | 0;
  };
}

/** Builds the MinHasher of a parameter set (the params are trusted: see `parseMinHashParams`). */
export function createMinHasher(params: MinHashParams): MinHasher {
  const { num_perms: numPerms, num_bands: numBands, ngram_size: ngramSize, text_cap_chars: cap } = params;
  const rowsPerBand = numPerms / numBands;
  const next = splitMix32(params.seed ^ 0x5eed);
  const a = new Int32Array(numPerms);
  const b = new Int32Array(numPerms);
  for (let i = 0; i < numPerms; i++) {
    a[i] = next() | 1;
    b[i] = next();
  }
  const sig = new Int32Array(numPerms);

  function signatureOfHashes(hashes: Int32Array): Int32Array | null {
    if (hashes.length === 0) return null;
    // Permutation-outer, two permutations per pass over the shingles: a[i], b[i] and the running minima stay in
    // registers, and each shingle hash is loaded once per pair (about 30% faster than one at a time).
    const n = hashes.length;
    let i = 0;
    for (; i + 1 < numPerms; i += 2) {
      const a0 = a[i] as number;
      const b0 = b[i] as number;
      const a1 = a[i + 1] as number;
      const b1 = b[i + 1] as number;
      let m0 = 0x7fffffff;
      let m1 = 0x7fffffff;
      for (let s = 0; s < n; s++) {
        const x = hashes[s] as number;
        let v = (Math.imul(x, a0) + b0) | 0;
        v ^= v >>> 16;
        v = Math.imul(v, 0x85ebca6b);
        v ^= v >>> 13;
        if (v < m0) m0 = v;
        let w = (Math.imul(x, a1) + b1) | 0;
        w ^= w >>> 16;
        w = Math.imul(w, 0x85ebca6b);
        w ^= w >>> 13;
        if (w < m1) m1 = w;
      }
      sig[i] = m0;
      sig[i + 1] = m1;
    }
    if (i < numPerms) {
      const ai = a[i] as number;
      const bi = b[i] as number;
      let min = 0x7fffffff;
      for (let s = 0; s < n; s++) {
        let v = (Math.imul(hashes[s] as number, ai) + bi) | 0;
        v ^= v >>> 16;
        v = Math.imul(v, 0x85ebca6b);
        v ^= v >>> 13;
        if (v < min) min = v;
      }
      sig[i] = min;
    }
    return sig.slice();
  }

  return {
    params,
    rowsPerBand,
    signature(text: string): Int32Array | null {
      const capped = cap !== null && text.length > cap ? truncateCodePoints(text, cap) : text;
      return signatureOfHashes(shingleHashes(capped, ngramSize));
    },
    signatureOfHashes,
    buckets(signature: Int32Array): string[] {
      const out: string[] = new Array<string>(numBands);
      for (let band = 0; band < numBands; band++) {
        // Two independent 32-bit hashes of (band, rows) make a 64-bit key: collisions between unrelated bands are
        // negligible even over billions of documents.
        let h1 = fmix32(band ^ 0x1b873593);
        let h2 = fmix32(band ^ 0x27d4eb2f);
        for (let r = band * rowsPerBand; r < (band + 1) * rowsPerBand; r++) {
          const v = signature[r] as number;
          h1 = Math.imul(h1 ^ v, 0x9e3779b1);
          h1 = (h1 << 13) | (h1 >>> 19);
          h2 = Math.imul(h2 ^ v, 0x85ebca77);
          h2 = (h2 << 17) | (h2 >>> 15);
        }
        out[band] = hex8(fmix32(h1)) + hex8(fmix32(h2 ^ h1));
      }
      return out;
    },
  };
}

/** The fraction of equal positions: the MinHash estimate of two sets' Jaccard similarity. */
export function estimateJaccard(a: Int32Array, b: Int32Array): number {
  let equal = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) equal++;
  return equal / a.length;
}

/**
 * The similarity at which a pair becomes an LSH candidate with probability 1/2 for `bands` × `rows`:
 * approximately `(1 / bands) ^ (1 / rows)` (0.744 for Marin's 26 × 11).
 */
export function lshThreshold(bands: number, rows: number): number {
  return (1 / bands) ** (1 / rows);
}

/** The first `maxChars` characters of `text`, counted in code points as Python's slicing counts them. */
export function truncateCodePoints(text: string, maxChars: number): string {
  let units = 0;
  let points = 0;
  while (units < text.length && points < maxChars) {
    const c = text.charCodeAt(units);
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < text.length ? 2 : 1;
    points++;
  }
  return text.slice(0, units);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex8(x: number): string {
  return (HEX[(x >>> 24) & 255] as string) + (HEX[(x >>> 16) & 255] as string) + (HEX[(x >>> 8) & 255] as string) + (HEX[x & 255] as string);
}
