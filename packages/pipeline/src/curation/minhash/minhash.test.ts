import { describe, expect, it } from 'vitest';
import { generateSyntheticCorpus } from '../synthetic/synthetic-corpus.js';
import { exactJaccardPairs } from '../synthetic/ground-truth.js';
import { cleanText, cleanWords } from './clean-text.js';
import { createMinHasher, estimateJaccard, lshThreshold, truncateCodePoints } from './minhash.js';
import { parseMinHashParams, requireSameMinHashParams } from './minhash-params.js';
import { shingleHashes, wordShingles } from './shingles.js';

describe('cleanText()', () => {
  it('lowercases, drops ASCII punctuation and collapses whitespace as Marin does', () => {
    expect(cleanText('  Hello,   World!\n\nIt\'s  (really) "fine"…  ')).toBe('hello world its really fine…');
  });
});

describe('wordShingles()', () => {
  it('makes word n-grams of the cleaned text, one shingle for a short text, none for an empty one', () => {
    expect(wordShingles('A b, C d. e', 3)).toEqual(['a b c', 'b c d', 'c d e']);
    expect(wordShingles('Two words', 5)).toEqual(['two words']);
    expect(wordShingles(' ... ', 5)).toEqual([]);
  });

  it('hashes equal shingles equally, whatever the case and punctuation around them', () => {
    expect(Array.from(shingleHashes('The quick brown fox jumps.', 3))).toEqual(Array.from(shingleHashes('the QUICK, brown fox   jumps', 3)));
    expect(new Set(shingleHashes('a b c a b c', 3)).size).toBe(3);
  });
});

describe('parseMinHashParams()', () => {
  it("fills Marin's defaults", () => {
    expect(parseMinHashParams()).toEqual({ num_perms: 286, num_bands: 26, ngram_size: 5, seed: 42, text_cap_chars: 500_000 });
  });

  it('refuses permutations that do not divide into bands', () => {
    expect(() => parseMinHashParams({ num_perms: 100, num_bands: 26 })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });

  it('refuses datasets deduplicated together with different params, naming the dataset', () => {
    const a = parseMinHashParams();
    const b = parseMinHashParams({ seed: 7 });
    expect(() => requireSameMinHashParams([{ name: 'web', params: a }, { name: 'books', params: b }])).toThrow(
      expect.objectContaining({ code: 'PIPELINE_SCHEMA_MISMATCH', details: expect.objectContaining({ dataset: 'books' }) }),
    );
    expect(requireSameMinHashParams([{ name: 'web', params: a }, { name: 'books', params: parseMinHashParams() }])).toEqual(a);
  });
});

describe('createMinHasher()', () => {
  const params = parseMinHashParams();

  it('gives equal signatures for equal shingle sets and none for an empty text', () => {
    const h = createMinHasher(params);
    expect(h.signature('Hello there, general Kenobi! You are a bold one.')).toEqual(h.signature('hello there general kenobi you are a bold one'));
    expect(h.signature('   ')).toBeNull();
  });

  it('depends on the seed', () => {
    const text = 'one two three four five six seven';
    expect(createMinHasher(params).signature(text)).not.toEqual(createMinHasher({ ...params, seed: 1 }).signature(text));
  });

  it('estimates the exact Jaccard similarity of planted near duplicates within a few points', () => {
    const docs = generateSyntheticCorpus({ seed: 3, documents: 600, nearDuplicateRate: 0.3, editRate: [0.01, 0.3] });
    const pairs = exactJaccardPairs(docs.map((d) => d.text), 5).filter((p) => p.jaccard > 0.05);
    expect(pairs.length).toBeGreaterThan(100);
    const h = createMinHasher(params);
    const sigs = docs.map((d) => h.signature(d.text) as Int32Array);
    const errors = pairs.map((p) => Math.abs(estimateJaccard(sigs[p.a] as Int32Array, sigs[p.b] as Int32Array) - p.jaccard));
    const mean = errors.reduce((s, e) => s + e, 0) / errors.length;
    // The standard error of a 286-permutation estimate is at most sqrt(0.25 / 286) ≈ 0.03.
    expect(mean).toBeLessThan(0.03);
    expect(Math.max(...errors)).toBeLessThan(0.15);
  }, 60_000);

  it('puts identical texts in the same bucket of every band, and unrelated texts in none', () => {
    const h = createMinHasher(params);
    const [a, b] = generateSyntheticCorpus({ seed: 4, documents: 2, exactDuplicateRate: 0, nearDuplicateRate: 0 }) as unknown as [{ text: string }, { text: string }];
    const ba = h.buckets(h.signature(a.text) as Int32Array);
    expect(ba).toHaveLength(26);
    expect(new Set(ba).size).toBe(26);
    expect(h.buckets(h.signature(a.text) as Int32Array)).toEqual(ba);
    const bb = new Set(h.buckets(h.signature(b.text) as Int32Array));
    expect(ba.filter((x) => bb.has(x))).toEqual([]);
  });

  it('caps texts at text_cap_chars code points before shingling', () => {
    const h = createMinHasher(parseMinHashParams({ text_cap_chars: 20, ngram_size: 2 }));
    expect(h.signature('aaa bbb ccc ddd eee fff ggg hhh')).toEqual(h.signature('aaa bbb ccc ddd eee f'));
    expect(truncateCodePoints('a😀b😀c', 3)).toBe('a😀b');
  });
});

describe('lshThreshold()', () => {
  it("is about 0.74 for Marin's 26 bands of 11 rows", () => {
    expect(lshThreshold(26, 11)).toBeCloseTo(0.744, 3);
  });
});

describe('cleanWords()', () => {
  it('is cleanText split on its single spaces', () => {
    for (const t of ['', '   ', ' a ', 'Hello,   World!\n\nx', '\u2003lead and trail\t', '...', "it's (fine)"]) {
      const c = cleanText(t);
      expect(cleanWords(t)).toEqual(c === '' ? [] : c.split(' '));
    }
  });
});
