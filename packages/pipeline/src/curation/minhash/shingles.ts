import { cleanWords } from './clean-text.js';

/**
 * The word n-gram shingles of a text after {@link cleanText}: each run of `ngramSize` consecutive words joined by
 * one space. A text with fewer words than `ngramSize` (but at least one) is one shingle, so short documents still
 * get a signature; an empty text has none.
 */
export function wordShingles(text: string, ngramSize: number): string[] {
  const words = cleanWords(text);
  if (words.length === 0) return [];
  if (words.length < ngramSize) return [words.join(' ')];
  const out: string[] = [];
  for (let i = 0; i + ngramSize <= words.length; i++) out.push(words.slice(i, i + ngramSize).join(' '));
  return out;
}

/** The distinct shingles of a text, as a set (what the exact Jaccard of the ground truth is computed on). */
export function shingleSet(text: string, ngramSize: number): Set<string> {
  return new Set(wordShingles(text, ngramSize));
}

/** 32-bit hash of a string's UTF-16 code units (MurmurHash3's body and finaliser), seeded. */
export function hashString32(s: string, seed = 0): number {
  let h = seed | 0;
  for (let i = 0; i < s.length; i++) {
    let k = Math.imul(s.charCodeAt(i), 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  return fmix32(h ^ s.length);
}

/** MurmurHash3's 32-bit finaliser: a bijection that spreads every input bit over the output. */
export function fmix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/**
 * 32-bit hashes of a text's word n-gram shingles, without building the shingle strings: each word is hashed once
 * and a shingle's hash mixes its `ngramSize` word hashes in order. Equal shingles give equal hashes, so the hash
 * set stands for the shingle set. Returns an empty array for an empty text.
 */
export function shingleHashes(text: string, ngramSize: number): Int32Array {
  const words = cleanWords(text);
  if (words.length === 0) return new Int32Array(0);
  const wordHashes = new Int32Array(words.length);
  for (let i = 0; i < words.length; i++) wordHashes[i] = hashString32(words[i] as string);
  const n = Math.min(ngramSize, words.length);
  const count = words.length - n + 1;
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    let h = n;
    for (let j = 0; j < n; j++) {
      h = Math.imul(h ^ (wordHashes[i + j] as number), 0x9e3779b1);
      h = (h << 13) | (h >>> 19);
    }
    out[i] = fmix32(h);
  }
  return out;
}
