import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzyDedupInMemory } from '../../src/curation/minhash/fuzzy-dedup.js';
import { createMinHasher, estimateJaccard, lshThreshold } from '../../src/curation/minhash/minhash.js';
import { parseMinHashParams } from '../../src/curation/minhash/minhash-params.js';
import { wordShingles } from '../../src/curation/minhash/shingles.js';
import { exactJaccardPairs, thresholdClusters } from '../../src/curation/synthetic/ground-truth.js';
import type { JaccardPair } from '../../src/curation/synthetic/ground-truth.js';
import { pairwiseScores } from '../../src/curation/synthetic/pairwise-scores.js';
import { generateSyntheticCorpus } from '../../src/curation/synthetic/synthetic-corpus.js';
import type { SyntheticDocument } from '../../src/curation/synthetic/synthetic-corpus.js';
import { runCurationPython } from '../helpers/curation-python.js';

// Marin's defaults: 286 permutations in 26 bands of 11 rows, word 5-grams, seed 42.
const params = parseMinHashParams();
const threshold = lshThreshold(26, 11);

let docs: SyntheticDocument[];
let pairs: JaccardPair[];
let truth: string[];
let ours: string[];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'minhash-oracles-'));
  docs = generateSyntheticCorpus({ seed: 21, documents: 1500, nearDuplicateRate: 0.2, editRate: [0.005, 0.2] });
  pairs = exactJaccardPairs(docs.map((d) => d.text), params.ngram_size);
  truth = thresholdClusters(docs.length, pairs, threshold).map(String);
  const result = await fuzzyDedupInMemory([{ name: 'synthetic', parts: [{ name: 'part-0', records: () => docs }] }], params);
  ours = (result.attributes[0]?.parts[0]?.rows ?? []).map((r, i) => r.dup_cluster_id ?? `single-${i}`);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fuzzy dedup against datasketch (same shingles, same permutations and bands)', () => {
  it('estimates Jaccard as closely as datasketch does and finds the same clusters', async () => {
    const job = {
      num_perm: params.num_perms,
      bands: params.num_bands,
      rows: params.num_perms / params.num_bands,
      seed: params.seed,
      docs: docs.map((d) => wordShingles(d.text, params.ngram_size)),
      pairs: pairs.map((p) => [p.a, p.b]),
    };
    const out = JSON.parse(await runCurationPython('datasketch_minhash.py', [], JSON.stringify(job))) as { estimates: number[]; clusters: number[] };
    const hasher = createMinHasher(params);
    const sigs = docs.map((d) => hasher.signature(d.text) as Int32Array);
    const mae = (f: (p: JaccardPair, i: number) => number): number => pairs.reduce((s, p, i) => s + Math.abs(f(p, i) - p.jaccard), 0) / pairs.length;
    const oursMae = mae((p) => estimateJaccard(sigs[p.a] as Int32Array, sigs[p.b] as Int32Array));
    const theirsMae = mae((_, i) => out.estimates[i] as number);
    expect(pairs.length).toBeGreaterThan(300);
    expect(oursMae).toBeLessThan(theirsMae + 0.01);

    const theirs = out.clusters.map(String);
    const oursF1 = pairwiseScores(ours, truth).f1;
    const theirsF1 = pairwiseScores(theirs, truth).f1;
    // Both are estimates at the same threshold; ours may not be worse beyond sampling noise.
    expect(oursF1).toBeGreaterThanOrEqual(theirsF1 - 0.02);
    // Independent estimators disagree on pairs near the threshold, so agreement is high but not total.
    expect(pairwiseScores(ours, theirs).f1).toBeGreaterThan(0.8);
  }, 120_000);
});

describe('fuzzy dedup against datatrove (its MinHash dedup pipeline on the same corpus)', () => {
  it('scores at least datatrove’s pairwise F1 against the exact ground truth, and agrees with its clusters', async () => {
    const corpus = join(dir, 'corpus.jsonl');
    await writeFile(corpus, docs.map((d) => JSON.stringify({ id: d.id, text: d.text })).join('\n') + '\n');
    const rows = String(params.num_perms / params.num_bands);
    const out = JSON.parse(await runCurationPython('datatrove_minhash.py', [corpus, join(dir, 'datatrove'), String(params.num_bands), rows, String(params.ngram_size)])) as {
      clusters: Record<string, number | null>;
    };
    const theirs = docs.map((d, i) => {
      const c = out.clusters[d.id];
      expect(c).not.toBeUndefined();
      return c === null || c === undefined ? `single-${i}` : `c${c}`;
    });
    const oursF1 = pairwiseScores(ours, truth).f1;
    const theirsF1 = pairwiseScores(theirs, truth).f1;
    expect(theirsF1).toBeGreaterThan(0.5);
    expect(oursF1).toBeGreaterThanOrEqual(theirsF1 - 0.02);
    expect(pairwiseScores(ours, theirs).f1).toBeGreaterThan(0.8);
  }, 180_000);
});
