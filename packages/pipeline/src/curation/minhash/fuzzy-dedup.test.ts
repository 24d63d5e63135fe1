import { describe, expect, it } from 'vitest';
import { generateSyntheticCorpus } from '../synthetic/synthetic-corpus.js';
import { exactJaccardPairs, thresholdClusters } from '../synthetic/ground-truth.js';
import { pairwiseScores } from '../synthetic/pairwise-scores.js';
import { fuzzyDedupInMemory, minhashBuckets } from './fuzzy-dedup.js';
import { createMinHasher, lshThreshold } from './minhash.js';
import { parseMinHashParams } from './minhash-params.js';

const params = parseMinHashParams();

describe('fuzzyDedupInMemory()', () => {
  it('finds the planted duplicates: one canonical per cluster, the others marked, pairwise F1 above 0.85 at the LSH threshold', async () => {
    const docs = generateSyntheticCorpus({ seed: 11, documents: 800 });
    const half = docs.length / 2;
    const result = await fuzzyDedupInMemory(
      [{ name: 'corpus', parts: [{ name: 'part-0', records: () => docs.slice(0, half) }, { name: 'part-1', records: () => docs.slice(half) }] }],
      params,
    );
    const rows = result.attributes[0]?.parts.flatMap((p) => p.rows) ?? [];
    expect(rows.map((r) => r.id)).toEqual(docs.map((d) => d.id));
    // Every exact copy is marked a duplicate (its original, earlier and smaller, is canonical).
    for (const [i, d] of docs.entries()) if (d.kind === 'exact') expect(rows[i]).toMatchObject({ fuzzy_duplicate: true, dup_cluster_id: docs[d.family]?.id });
    const clusters = new Map<string, number>();
    for (const r of rows) if (r.dup_cluster_id !== null) clusters.set(r.dup_cluster_id, (clusters.get(r.dup_cluster_id) ?? 0) + (r.is_cluster_canonical ? 1 : 0));
    expect([...clusters.values()].every((n) => n === 1)).toBe(true);
    expect(result.counters.duplicates).toBe(result.counters.clusterMembers - result.counters.clusters);

    const truth = thresholdClusters(docs.length, exactJaccardPairs(docs.map((d) => d.text), 5), lshThreshold(26, 11));
    const scores = pairwiseScores(rows.map((r, i) => r.dup_cluster_id ?? `single-${i}`), truth.map(String));
    expect(scores.f1).toBeGreaterThan(0.85);
  }, 60_000);

  it('clusters across datasets: a copy in a second dataset is a duplicate of the first one, same ids stay distinct', async () => {
    const docs = generateSyntheticCorpus({ seed: 12, documents: 50, exactDuplicateRate: 0, nearDuplicateRate: 0 });
    const web = docs.slice(0, 30);
    const books = [docs[3], docs[40], docs[5]].map((d) => ({ id: d?.id ?? '', text: d?.text ?? '' }));
    const result = await fuzzyDedupInMemory(
      [{ name: 'web', parts: [{ name: 'p0', records: () => web }] }, { name: 'books', parts: [{ name: 'p0', records: () => books }] }],
      params,
    );
    const webRows = result.attributes[0]?.parts[0]?.rows ?? [];
    const bookRows = result.attributes[1]?.parts[0]?.rows ?? [];
    expect(webRows[3]).toMatchObject({ fuzzy_duplicate: false, is_cluster_canonical: true, dup_cluster_id: docs[3]?.id });
    expect(bookRows[0]).toMatchObject({ fuzzy_duplicate: true, is_cluster_canonical: false, dup_cluster_id: docs[3]?.id });
    expect(bookRows[1]).toMatchObject({ fuzzy_duplicate: false, dup_cluster_id: null });
    expect(bookRows[2]).toMatchObject({ fuzzy_duplicate: true, dup_cluster_id: docs[5]?.id });
    expect(result.counters).toMatchObject({ clusters: 2, clusterMembers: 4, duplicates: 2 });
  });
});

describe('minhashBuckets()', () => {
  it('skips empty texts (counted), treats null as empty, and refuses a non-string text naming the source', async () => {
    const hasher = createMinHasher(params);
    const counters = { documents: 0, emptySignatures: 0, textTruncated: 0 };
    const rows = [];
    for await (const r of minhashBuckets([{ id: 'a', text: 'some words here' }, { id: 'b', text: '' }, { id: 'c', text: null }], hasher, { source: 'x.parquet' }, counters)) rows.push(r);
    expect(rows.map((r) => r.id)).toEqual(['a']);
    expect(counters).toEqual({ documents: 1, emptySignatures: 2, textTruncated: 0 });
    const bad = async () => {
      for await (const _ of minhashBuckets([{ id: 'n', text: 42 }], hasher, { source: 'x.parquet' })) void _;
    };
    await expect(bad()).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { source: 'x.parquet', id: 'n' } });
  });
});
