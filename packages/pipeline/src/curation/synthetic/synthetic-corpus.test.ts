import { describe, expect, it } from 'vitest';
import { exactJaccardPairs, jaccard, thresholdClusters } from './ground-truth.js';
import { pairwiseScores } from './pairwise-scores.js';
import { generateSyntheticCorpus, syntheticDocuments } from './synthetic-corpus.js';

describe('generateSyntheticCorpus()', () => {
  it('is a pure function of its options', () => {
    expect(generateSyntheticCorpus({ seed: 5, documents: 200 })).toEqual(generateSyntheticCorpus({ seed: 5, documents: 200 }));
    expect(generateSyntheticCorpus({ seed: 6, documents: 20 })[0]?.text).not.toBe(generateSyntheticCorpus({ seed: 5, documents: 20 })[0]?.text);
  });

  it('plants exact copies and near copies of earlier originals at about the asked rates', () => {
    const docs = generateSyntheticCorpus({ seed: 1, documents: 4000, exactDuplicateRate: 0.1, nearDuplicateRate: 0.2 });
    const count = (k: string): number => docs.filter((d) => d.kind === k).length;
    expect(count('exact') / docs.length).toBeGreaterThan(0.08);
    expect(count('exact') / docs.length).toBeLessThan(0.12);
    expect(count('near') / docs.length).toBeGreaterThan(0.17);
    expect(count('near') / docs.length).toBeLessThan(0.23);
    for (const d of docs) {
      const source = docs[d.family];
      expect(source?.kind).toBe('original');
      if (d.kind === 'exact') expect(d.text).toBe(source?.text);
      if (d.kind === 'near') expect(d.family).toBeLessThan(Number(d.id.slice(4)));
    }
    expect(docs[0]?.text).toMatch(/^[A-Z][a-z]+ [a-z]/);
  }, 60_000);

  it('refuses invalid options', () => {
    expect(() => generateSyntheticCorpus({ exactDuplicateRate: 2 })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
    expect(() => generateSyntheticCorpus({ sourceWindow: 0 })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });
});

describe('syntheticDocuments()', () => {
  it('streams the same documents as generateSyntheticCorpus', () => {
    expect([...syntheticDocuments({ seed: 3, documents: 500 })]).toEqual(generateSyntheticCorpus({ seed: 3, documents: 500 }));
  }, 60_000);

  it('with a sourceWindow, copies only the latest originals, and is still a pure function of its options', () => {
    const window = 20;
    const docs = [...syntheticDocuments({ seed: 4, documents: 1500, sourceWindow: window, exactDuplicateRate: 0.1, nearDuplicateRate: 0.2 })];
    expect(docs).toEqual([...syntheticDocuments({ seed: 4, documents: 1500, sourceWindow: window, exactDuplicateRate: 0.1, nearDuplicateRate: 0.2 })]);
    const rank = new Map(docs.filter((d) => d.kind === 'original').map((d, r) => [d.family, r]));
    let copies = 0;
    let originalsBefore = 0;
    docs.forEach((d) => {
      if (d.kind === 'original') {
        originalsBefore += 1;
        return;
      }
      copies += 1;
      expect(docs[d.family]?.kind).toBe('original');
      if (d.kind === 'exact') expect(d.text).toBe(docs[d.family]?.text);
      // The source is one of the `window` originals generated last before this copy.
      expect(rank.get(d.family)).toBeGreaterThanOrEqual(originalsBefore - window);
    });
    expect(copies).toBeGreaterThan(300);
  }, 60_000);
});

describe('exactJaccardPairs()', () => {
  it('lists every pair sharing a shingle with its exact Jaccard, exact copies at 1', () => {
    const texts = ['a b c d e f', 'A b c d, e f!', 'a b c d e x', 'p q r s t u'];
    expect(exactJaccardPairs(texts, 3)).toEqual([
      { a: 0, b: 1, jaccard: 1 },
      { a: 0, b: 2, jaccard: 3 / 5 },
      { a: 1, b: 2, jaccard: 3 / 5 },
    ]);
    expect(jaccard(new Set([1, 2]), new Set([2, 3]))).toBeCloseTo(1 / 3);
  });

  it('matches a brute-force all-pairs computation on a planted corpus', () => {
    const docs = generateSyntheticCorpus({ seed: 9, documents: 120, nearDuplicateRate: 0.3, vocabularySize: 50 });
    const pairs = exactJaccardPairs(docs.map((d) => d.text), 2);
    const sets = docs.map((d) => new Set(d.text.toLowerCase().replace(/[^a-z0-9\s]/g, '').split(/\s+/).filter(Boolean).flatMap((w, i, ws) => (i + 1 < ws.length ? [`${w} ${ws[i + 1]}`] : []))));
    const brute = [];
    for (let a = 0; a < docs.length; a++) for (let b = a + 1; b < docs.length; b++) {
      const j = jaccard(sets[a] as Set<string>, sets[b] as Set<string>);
      if (j > 0) brute.push({ a, b, jaccard: j });
    }
    expect(pairs).toEqual(brute);
  }, 60_000);
});

describe('thresholdClusters() and pairwiseScores()', () => {
  it('clusters transitively at the threshold and scores pairs through the contingency table', () => {
    const truth = thresholdClusters(6, [{ a: 0, b: 1, jaccard: 0.9 }, { a: 1, b: 2, jaccard: 0.8 }, { a: 3, b: 4, jaccard: 0.5 }], 0.7);
    expect(truth).toEqual([0, 0, 0, 3, 4, 5]);
    // Predicted: {0,1}, {2,3}: 1 correct pair of 2 predicted, of 3 true.
    const s = pairwiseScores<string | number>(['x', 'x', 'y', 'y', 'z', 'w'], truth);
    expect(s).toMatchObject({ correctPairs: 1, predictedPairs: 2, truePairs: 3, precision: 0.5 });
    expect(s.recall).toBeCloseTo(1 / 3);
    expect(s.f1).toBeCloseTo(0.4);
    expect(pairwiseScores([1, 2], [1, 2])).toMatchObject({ precision: 1, recall: 1, f1: 1 });
  });
});
