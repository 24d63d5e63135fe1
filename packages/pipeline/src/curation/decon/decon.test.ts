import { describe, expect, it } from 'vitest';
import { addEvalRecord, scoreDocument } from './decon-marker.js';
import { featureHash, featureHashFromBigInt, featureHashToBigInt } from './feature-hash.js';
import { BloomFilter, EvalHashFilter, ExactHashSet, deserializeHashMembership } from './hash-membership.js';
import { NGramConfigSchema, documentFeatures, ngramFeatures, paragraphFeatureHashes, paragraphFeatures, shortExactFeature, splitTokens } from './ngram-features.js';

const ngram = NGramConfigSchema.parse({});
const words = (n: number, prefix: string): string => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

describe('n-gram features', () => {
  it("has Marin's defaults", () => {
    expect(ngram).toEqual({ ngram_length: 13, stride: 0, overlap_threshold: 0.5, paragraph_delimiter: '\n\n' });
  });

  it('splits like Python str.split() and skips n-grams without a letter', () => {
    expect(splitTokens('  a\tb\n c  ')).toEqual(['a', 'b', 'c']);
    expect(ngramFeatures('1 2 3 x', 3, 0)).toEqual(['2 3 x']);
    expect(ngramFeatures('a b c d e', 2, 1)).toEqual(['a b', 'c d']);
  });

  it('matches short paragraphs (3 to n-1 tokens with a letter) as one exact feature, never one-token labels', () => {
    expect(shortExactFeature('The answer is   B.', 13)).toBe('The answer is B.');
    expect(shortExactFeature('A.', 13)).toBeNull();
    expect(shortExactFeature('1 2 3', 13)).toBeNull();
    expect(documentFeatures('A.\n\nB.', ngram)).toEqual([]);
    expect(documentFeatures(`${words(14, 'w')}\n\nshort para here`, ngram)).toEqual([...ngramFeatures(words(14, 'w'), 13, 0), 'short para here']);
  });
});

describe('hash filters', () => {
  const hashes = Array.from({ length: 5000 }, (_, i) => featureHash(`feature ${i}`));

  it('answers membership exactly, survives serialization, and round-trips hashes through bigint', () => {
    const set = new ExactHashSet();
    for (const h of hashes) set.add(h);
    set.add(hashes[0] as never);
    expect(set.count).toBe(5000);
    const back = deserializeHashMembership(set.serialize(), 'filter.bin');
    expect(hashes.every((h) => back.has(h))).toBe(true);
    expect(back.has(featureHash('absent'))).toBe(false);
    expect(featureHashFromBigInt(featureHashToBigInt(hashes[7] as never))).toEqual(hashes[7]);
  });

  it('never gives a false negative as a Bloom filter, and about its rate of false positives', () => {
    const bloom = BloomFilter.forCount(5000, 0.01);
    for (const h of hashes) bloom.add(h);
    expect(hashes.every((h) => bloom.has(h))).toBe(true);
    let fp = 0;
    for (let i = 0; i < 20_000; i++) if (bloom.has(featureHash(`other ${i}`))) fp++;
    expect(fp / 20_000).toBeLessThan(0.02);
    const back = deserializeHashMembership(bloom.serialize(), 'filter.bin');
    expect(back.kind).toBe('bloom');
    expect(hashes.every((h) => back.has(h))).toBe(true);
  });

  it('is an exact set while small and a Bloom filter past exactSetMaxHashes', () => {
    const filter = new EvalHashFilter({ exactSetMaxHashes: 1000 });
    for (const h of hashes.slice(0, 1000)) filter.add(h);
    expect(filter.kind).toBe('exact');
    for (const h of hashes.slice(1000)) filter.add(h);
    expect(filter.kind).toBe('bloom');
    expect(hashes.every((h) => filter.has(h))).toBe(true);
  });

  it('refuses bytes that are not a filter, naming the file', () => {
    expect(() => deserializeHashMembership(new Uint8Array(40), 'x/filter.bin')).toThrow(expect.objectContaining({ code: 'PIPELINE_INPUT_INVALID', details: { path: 'x/filter.bin' } }));
  });
});

describe('scoreDocument()', () => {
  const evalText = `${words(30, 'q')}\n\nWhich option is correct`;

  function filterOf(text: string): { filter: ExactHashSet; rows: ReturnType<typeof addEvalRecord> } {
    const filter = new ExactHashSet();
    return { filter, rows: addEvalRecord(filter, text, 'task/0', ngram) };
  }

  it('writes one sidecar row per distinct feature of an eval record', () => {
    const { rows } = filterOf(`${evalText}\n\n${evalText}`);
    expect(rows).toHaveLength(18 + 1);
    expect(rows.every((r) => r.eval_id === 'task/0' && typeof r.hash === 'bigint')).toBe(true);
  });

  it('flags a document with an eval paragraph inside, with the matched hashes, and leaves a clean one', () => {
    const { filter, rows } = filterOf(evalText);
    const leaked = scoreDocument('d1', `Intro words here and there for sure okay.\n\n${words(30, 'q')}\n\nOutro.`, filter, ngram);
    expect(leaked).toMatchObject({ id: 'd1', contaminated: true, max_overlap: 1 });
    expect(leaked.matched_hashes).toHaveLength(18);
    expect(new Set(rows.map((r) => r.hash))).toEqual(new Set([...leaked.matched_hashes, ...rows.map((r) => r.hash)]));
    expect(scoreDocument('d2', words(40, 'z'), filter, ngram)).toEqual({ id: 'd2', contaminated: false, max_overlap: 0, matched_hashes: [] });
  });

  it('scores partial overlap as the fraction of the paragraph, against the threshold', () => {
    const { filter } = filterOf(evalText);
    // 18 eval n-grams among 18 + 19 n-grams of a paragraph that continues with other words: below 0.5.
    const mixed = scoreDocument('d3', `${words(30, 'q')} ${words(19, 'z')}`, filter, ngram);
    expect(mixed.max_overlap).toBeCloseTo(18 / 37, 10);
    expect(mixed.contaminated).toBe(false);
    expect(scoreDocument('d3', `${words(30, 'q')} ${words(19, 'z')}`, filter, { ...ngram, overlap_threshold: 0.4 }).contaminated).toBe(true);
  });

  it('matches a short eval question exactly, but not a one-word label', () => {
    const { filter } = filterOf('Which option is correct');
    expect(scoreDocument('d4', 'Which option   is correct', filter, ngram)).toMatchObject({ contaminated: true, max_overlap: 1 });
    const labels = filterOf('B.').filter;
    expect(labels.count).toBe(0);
    expect(scoreDocument('d5', 'B.', labels, ngram).contaminated).toBe(false);
  });
});

describe('paragraphFeatureHashes()', () => {
  it('equals hashing each feature string, for n-grams, strides, short paragraphs and letterless windows', () => {
    for (const [text, cfg] of [
      [`${words(40, 'w')} 1 2 3 4 5 6 7 8 9 10 11 12 13 14`, {}],
      [words(30, 'x'), { ngram_length: 5, stride: 2 }],
      ['Which option is correct', {}],
      ['1 2 3 4', {}],
      ['A.', {}],
    ] as const) {
      const c = NGramConfigSchema.parse(cfg);
      expect(paragraphFeatureHashes(text, c)).toEqual(paragraphFeatures(text, c).map(featureHash));
    }
  });
});
