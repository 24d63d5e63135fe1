/**
 * The 64-bit hash of a decontamination feature, as an unsigned bigint-free pair: two MurmurHash3-style passes over
 * the UTF-16 code units with different seeds. Marin hashes features with an 8-byte BLAKE2b; in Node a BLAKE2b call
 * costs microseconds (WASM), this one a tenth of that, and the filter and its sidecar only ever meet our own hashes.
 */
export interface FeatureHash {
  hi: number;
  lo: number;
}

function pass(s: string, seed: number): number {
  let h = seed | 0;
  for (let i = 0; i < s.length; i++) {
    let k = Math.imul(s.charCodeAt(i), 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= s.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes one feature. */
export function featureHash(feature: string): FeatureHash {
  return { hi: pass(feature, 0x5f3759df), lo: pass(feature, 0x2545f491) };
}

/** A feature hash as the uint64 the eval-hash sidecar stores. */
export function featureHashToBigInt(h: FeatureHash): bigint {
  return (BigInt(h.hi) << 32n) | BigInt(h.lo);
}

/** The inverse of {@link featureHashToBigInt}. */
export function featureHashFromBigInt(v: bigint): FeatureHash {
  return { hi: Number((v >> 32n) & 0xffffffffn), lo: Number(v & 0xffffffffn) };
}
