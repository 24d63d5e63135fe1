// Curation benchmarks, each side by side with its Python reference in the same run, on seeded synthetic data:
//   1. fuzzy dedup end to end (MinHash attrs → bucket shuffle → components → attributes, in-process, one task at a
//      time) vs datatrove's MinHash dedup pipeline (signatures → buckets → clusters → filter, one worker), docs/s
//      per CPU second, and pairwise F1 against the exact ground truth for ours, datatrove and datasketch at the same
//      26 × 11 bands and word 5-grams;
//   2. decontamination marking vs the Python reference of Marin's rules (exact set of BLAKE2b hashes);
//   3. quality scoring (our streaming scorer over the fastText bindings) vs a plain Python loop over the bindings.
//
//   node --conditions=@marin/source --import tsx packages/pipeline/bench/curation.ts [--docs 20000] [--decon-docs 20000] [--quality-docs 50000]
//
// Needs the curation Python environment (node tools/python-env/python-env.mjs packages/pipeline/python/curation.lock).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { partFileName } from '../src/attributes/attribute-dataset.js';
import { tinyQualityModelPath } from '../src/curation/curation-assets.js';
import { addEvalRecord, scoreDocument } from '../src/curation/decon/decon-marker.js';
import { ExactHashSet } from '../src/curation/decon/hash-membership.js';
import { NGramConfigSchema } from '../src/curation/decon/ngram-features.js';
import { computeFuzzyDups } from '../src/curation/minhash/fuzzy-dups-stage.js';
import { computeMinhashAttrs } from '../src/curation/minhash/minhash-attrs.js';
import { lshThreshold } from '../src/curation/minhash/minhash.js';
import { wordShingles } from '../src/curation/minhash/shingles.js';
import { scoreWithFasttext } from '../src/curation/quality/fasttext-python.js';
import { generateQualityExamples } from '../src/curation/quality/quality-examples.js';
import { generateContaminatedCorpus } from '../src/curation/synthetic/contaminated-corpus.js';
import { exactJaccardPairs, thresholdClusters } from '../src/curation/synthetic/ground-truth.js';
import { pairwiseScores } from '../src/curation/synthetic/pairwise-scores.js';
import { generateSyntheticCorpus } from '../src/curation/synthetic/synthetic-corpus.js';
import { writeParquetPart } from '../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../src/formats/parquet-records.js';
import { curationPython, runCurationPython } from '../test/helpers/curation-python.js';

const { values: args } = parseArgs({
  options: { docs: { type: 'string', default: '20000' }, 'decon-docs': { type: 'string', default: '20000' }, 'quality-docs': { type: 'string', default: '50000' } },
});

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; wall: number; cpu: number }> {
  const w = performance.now();
  const c = cpuSeconds();
  const value = await f();
  return { value, wall: (performance.now() - w) / 1000, cpu: cpuSeconds() - c };
}

const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const python = await curationPython();
const dir = await mkdtemp(join(tmpdir(), 'bench-curation-'));
try {
  // ---- 1. fuzzy dedup
  const n = Number(args.docs);
  const docs = generateSyntheticCorpus({ seed: 42, documents: n });
  const parts = 4;
  const per = Math.ceil(n / parts);
  for (let i = 0; i < parts; i++) {
    await writeParquetPart(join(dir, 'corpus', partFileName(i, parts)), docs.slice(i * per, (i + 1) * per).map((d) => ({ id: d.id, text: d.text })), {
      columns: [{ name: 'id', type: 'string', nullable: false }, { name: 'text', type: 'string', nullable: false }],
    });
  }
  await writeFile(join(dir, 'corpus.jsonl'), docs.map((d) => JSON.stringify({ id: d.id, text: d.text })).join('\n') + '\n');
  const mb = docs.reduce((s, d) => s + Buffer.byteLength(d.text), 0) / 1e6;
  console.log(`fuzzy dedup: ${fmt(n)} synthetic documents (${fmt(mb, 1)} MB of text, ${parts} parquet parts), 286 permutations in 26 bands, word 5-grams`);

  const ours = await timed(async () => {
    await computeMinhashAttrs({ source: join(dir, 'corpus'), outputDir: join(dir, 'minhash'), maxParallelism: 1 });
    return computeFuzzyDups({ inputs: [join(dir, 'minhash')], outputDir: join(dir, 'dups'), maxParallelism: 1, numPartitions: 4 });
  });
  const dt = JSON.parse(await runCurationPython('datatrove_minhash.py', [join(dir, 'corpus.jsonl'), join(dir, 'datatrove'), '26', '11', '5'])) as {
    seconds: Record<string, number>;
    cpu_seconds: Record<string, number>;
    clusters: Record<string, number | null>;
  };
  console.log(`  ours (TypeScript, one task at a time): ${fmt(ours.wall, 1)} s wall, ${fmt(ours.cpu, 1)} CPU s → ${fmt(n / ours.cpu)} docs per CPU-second (${fmt(n / ours.wall)} docs/s wall)`);
  console.log(`  datatrove (one worker):                ${fmt(dt.seconds['total'] ?? 0, 1)} s wall, ${fmt(dt.cpu_seconds['total'] ?? 0, 1)} CPU s → ${fmt(n / (dt.cpu_seconds['total'] ?? 1))} docs per CPU-second (${fmt(n / (dt.seconds['total'] ?? 1))} docs/s wall)`);
  console.log(`  ratio (docs per CPU-second): ${fmt((n / ours.cpu) / (n / (dt.cpu_seconds['total'] ?? 1)), 2)}x`);

  const threshold = lshThreshold(26, 11);
  const gt = await timed(async () => thresholdClusters(n, exactJaccardPairs(docs.map((d) => d.text), 5), threshold).map(String));
  const oursLabels: string[] = [];
  for (let i = 0; i < parts; i++) for await (const r of readParquetRecords(join(dir, 'dups/outputs/source_000', partFileName(i, parts)))) oursLabels.push((r['dup_cluster_id'] as string | null) ?? `single-${oursLabels.length}`);
  const dtLabels = docs.map((d, i) => (dt.clusters[d.id] === null || dt.clusters[d.id] === undefined ? `single-${i}` : `c${dt.clusters[d.id]}`));
  const ds = JSON.parse(
    await runCurationPython('datasketch_minhash.py', [], JSON.stringify({ num_perm: 286, bands: 26, rows: 11, seed: 42, docs: docs.map((d) => wordShingles(d.text, 5)), pairs: [] })),
  ) as { clusters: number[] };
  const dsLabels = ds.clusters.map(String);
  const line = (name: string, labels: string[]): string => {
    const s = pairwiseScores(labels, gt.value);
    return `  ${name.padEnd(11)} precision ${fmt(s.precision, 3)}  recall ${fmt(s.recall, 3)}  F1 ${fmt(s.f1, 3)}  (${fmt(s.predictedPairs)} predicted pairs, ${fmt(s.truePairs)} true)`;
  };
  console.log(`pairwise scores against the exact ground truth at Jaccard ≥ ${fmt(threshold, 3)} (the LSH threshold; ground truth in ${fmt(gt.wall, 1)} s):`);
  console.log(line('ours', oursLabels));
  console.log(line('datasketch', dsLabels));
  console.log(line('datatrove', dtLabels));

  // ---- 2. decontamination
  const deconN = Number(args['decon-docs']);
  const corpus = generateContaminatedCorpus({ seed: 42, documents: deconN, evalRecords: 500, rate: 0.05 });
  const ngram = NGramConfigSchema.parse({});
  const filter = new ExactHashSet();
  for (const e of corpus.eval) addEvalRecord(filter, e.text, e.id, ngram);
  const mark = await timed(async () => {
    let flagged = 0;
    for (const d of corpus.docs) if (scoreDocument(d.id, d.text, filter, ngram).contaminated) flagged++;
    return flagged;
  });
  const py = JSON.parse(await runCurationPython('decon_reference.py', [], JSON.stringify({ ngram, eval: corpus.eval, docs: corpus.docs }))) as { rows: { contaminated: boolean }[]; seconds: number; cpu_seconds: number };
  console.log(`decontamination marking: ${fmt(deconN)} documents against ${corpus.eval.length} eval records (13-grams, exact set), ${mark.value} flagged (Python: ${py.rows.filter((r) => r.contaminated).length})`);
  console.log(`  ours:             ${fmt(deconN / mark.cpu)} docs per CPU-second (${fmt(deconN / mark.wall)} docs/s wall)`);
  console.log(`  Python reference: ${fmt(deconN / py.cpu_seconds)} docs per CPU-second (${fmt(deconN / py.seconds)} docs/s wall)`);

  // ---- 3. quality scoring
  const qN = Number(args['quality-docs']);
  const qdocs = generateQualityExamples({ seed: 42, count: qN }).map((e, i) => ({ id: `q${i}`, text: e.text }));
  const scored = await timed(async () => {
    let k = 0;
    for await (const _ of scoreWithFasttext(qdocs, { python, modelPath: tinyQualityModelPath(), label: 'hq' })) k++;
    return k;
  });
  await writeFile(join(dir, 'quality.jsonl'), qdocs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  const pyLoop = `
import json, sys, time, re, fasttext
m = fasttext.load_model(sys.argv[1])
texts = [re.sub(r"[\\n\\r]", " ", json.loads(l)["text"]) for l in open(sys.argv[2])]
w, c = time.perf_counter(), time.process_time()
for t in texts: m.f.predict(t + "\\n", 2, 0.0, "strict")
print(json.dumps({"seconds": time.perf_counter() - w, "cpu_seconds": time.process_time() - c}))
`;
  await writeFile(join(dir, 'quality_loop.py'), pyLoop);
  const { spawnSync } = await import('node:child_process');
  const loop = JSON.parse(spawnSync(python, [join(dir, 'quality_loop.py'), tinyQualityModelPath(), join(dir, 'quality.jsonl')], { encoding: 'utf8' }).stdout) as { seconds: number; cpu_seconds: number };
  console.log(`quality scoring: ${fmt(qN)} documents, shipped tiny fastText model`);
  console.log(`  ours (Node streams JSON lines through the fastText bindings): ${fmt(qN / scored.wall)} docs/s wall, end to end incl. process start and model load`);
  console.log(`  Python loop over the bindings (predict only):                 ${fmt(qN / loop.cpu_seconds)} docs per CPU-second (${fmt(qN / loop.seconds)} docs/s wall)`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
