import { fmix32 as fmix, hashString32 as pass } from '../minhash/shingles.js';
import { splitTokens } from './ngram-features.js';

/**
 * The 64-bit hash of a decontamination feature (an n-gram or a short paragraph: tokens joined by single spaces),
 * as two unsigned 32-bit halves. Each token is hashed once (two MurmurHash3 passes over its UTF-16 code units,
 * different seeds, the same MurmurHash3 routine MinHash shingles use) and a feature's hash mixes its token hashes in order with its length, so the n-grams of a
 * paragraph are hashed without building their strings. Marin hashes the feature string with an 8-byte BLAKE2b; in
 * Node a BLAKE2b call costs microseconds (WASM), and the filter and its sidecar only ever meet our own hashes.
 */
export interface FeatureHash {
  hi: number;
  lo: number;
}

/** Per-token hash halves of a token list, for {@link combineTokenHashes}. */
export interface TokenHashes {
  hi: Int32Array;
  lo: Int32Array;
}

/** Hashes every token once. */
export function tokenHashes(tokens: readonly string[]): TokenHashes {
  const hi = new Int32Array(tokens.length);
  const lo = new Int32Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    hi[i] = pass(t, 0x5f3759df);
    lo[i] = pass(t, 0x2545f491);
  }
  return { hi, lo };
}

/** The hash of the feature made of tokens `start … start + count - 1`. */
export function combineTokenHashes(t: TokenHashes, start: number, count: number): FeatureHash {
  let hi = 0x27d4eb2f ^ count;
  let lo = 0x165667b1 ^ count;
  for (let i = start; i < start + count; i++) {
    hi = Math.imul(hi ^ (t.hi[i] as number), 0x9e3779b1);
    hi = (hi << 13) | (hi >>> 19);
    lo = Math.imul(lo ^ (t.lo[i] as number), 0x85ebca77);
    lo = (lo << 17) | (lo >>> 15);
  }
  return { hi: fmix(hi ^ lo) >>> 0, lo: fmix(lo + Math.imul(hi, 0x27d4eb2f)) >>> 0 };
}

/** Hashes one feature string (its whitespace-split tokens). */
export function featureHash(feature: string): FeatureHash {
  const tokens = splitTokens(feature);
  return combineTokenHashes(tokenHashes(tokens), 0, tokens.length);
}

/** A feature hash as the uint64 the eval-hash sidecar stores (as 16 hex digits). */
export function featureHashToBigInt(h: FeatureHash): bigint {
  return (BigInt(h.hi) << 32n) | BigInt(h.lo);
}

/** The inverse of {@link featureHashToBigInt}. */
export function featureHashFromBigInt(v: bigint): FeatureHash {
  return { hi: Number((v >> 32n) & 0xffffffffn), lo: Number(v & 0xffffffffn) };
}
