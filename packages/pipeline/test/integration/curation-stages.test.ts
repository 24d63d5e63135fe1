import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partFileName } from '../../src/attributes/attribute-dataset.js';
import { tinyQualityModelPath } from '../../src/curation/curation-assets.js';
import { addEvalRecord, scoreDocument } from '../../src/curation/decon/decon-marker.js';
import { computeDecon } from '../../src/curation/decon/decon-stage.js';
import { ExactHashSet } from '../../src/curation/decon/hash-membership.js';
import { NGramConfigSchema } from '../../src/curation/decon/ngram-features.js';
import { scoreWithFasttext } from '../../src/curation/quality/fasttext-python.js';
import { generateQualityExamples } from '../../src/curation/quality/quality-examples.js';
import { computeQualityScores } from '../../src/curation/quality/quality-stage.js';
import { generateContaminatedCorpus } from '../../src/curation/synthetic/contaminated-corpus.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../../src/formats/parquet-records.js';
import { curationPython } from '../helpers/curation-python.js';

const COLUMNS = [
  { name: 'id', type: 'string' as const, nullable: false },
  { name: 'text', type: 'string' as const, nullable: true },
];

let dir: string;

async function readRows(url: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of readParquetRecords(url)) out.push(r);
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'curation-stages-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('computeDecon()', () => {
  it('marks every part against an eval dataset read as any pipeline input, writes the sidecar, and a rerun skips', async () => {
    const corpus = generateContaminatedCorpus({ seed: 8, documents: 300, rate: 0.2 });
    const parts = [corpus.docs.slice(0, 150), corpus.docs.slice(150)];
    for (const [i, rows] of parts.entries()) await writeParquetPart(join(dir, 'src', partFileName(i, 2)), rows.map((d) => ({ id: d.id, text: d.text })), { columns: COLUMNS });
    await writeFile(join(dir, 'eval.jsonl'), corpus.eval.map((e) => JSON.stringify(e)).join('\n') + '\n');

    const out = join(dir, 'decon');
    const manifest = await computeDecon({ source: join(dir, 'src'), evalPaths: [join(dir, 'eval.jsonl')], outputDir: out });
    const ngram = NGramConfigSchema.parse({});
    const filter = new ExactHashSet();
    let sidecarRows = 0;
    for (const e of corpus.eval) sidecarRows += addEvalRecord(filter, e.text, e.id, ngram).length;
    expect(manifest.filter).toEqual({ kind: 'exact', hashes: filter.count });
    for (const [i, rows] of parts.entries()) {
      const got = await readRows(join(out, 'outputs/main', partFileName(i, 2)));
      expect(got).toEqual(
        rows.map((d) => {
          const a = scoreDocument(d.id, d.text, filter, ngram);
          return { id: a.id, contaminated: a.contaminated, max_overlap: a.max_overlap, matched_hashes: a.matched_hashes.map((h) => h.toString(16).padStart(16, '0')).join(' ') };
        }),
      );
    }
    const sidecar = await readRows(manifest.eval_hash_index_path);
    expect(sidecar).toHaveLength(sidecarRows);
    // Attribution: every hash a contaminated document matched names an eval record in the sidecar.
    const byHash = new Map(sidecar.map((r) => [r['hash'] as string, r['eval_id'] as string]));
    const flagged = (await readRows(join(out, 'outputs/main', partFileName(0, 2)))).filter((r) => r['contaminated'] === true);
    expect(flagged.length).toBeGreaterThan(5);
    for (const r of flagged) for (const h of (r['matched_hashes'] as string).split(' ')) expect(byHash.get(h)).toMatch(/^eval-/);
    expect(manifest.counters.contaminated + manifest.counters.clean).toBe(300);
    expect(await computeDecon({ source: join(dir, 'src'), evalPaths: [join(dir, 'missing')], outputDir: out })).toEqual(manifest);
  }, 120_000);

  it('reads the eval text from its own field (a shipped benchmark question is `query`)', async () => {
    const evalRows = [{ query: 'Which river flows past the old mill town today', gold: 1 }];
    await writeFile(join(dir, 'mc.jsonl'), evalRows.map((e) => JSON.stringify(e)).join('\n') + '\n');
    await writeParquetPart(join(dir, 'qsrc-decon', partFileName(0, 1)), [{ id: 'a', text: 'Intro.\n\nWhich river flows past the old mill town today' }, { id: 'b', text: 'Nothing here at all to see' }], { columns: COLUMNS });
    const m = await computeDecon({ source: join(dir, 'qsrc-decon'), evalPaths: [join(dir, 'mc.jsonl')], outputDir: join(dir, 'decon-query'), evalTextField: 'query' });
    expect(m.counters).toEqual({ contaminated: 1, clean: 1 });
  }, 60_000);

  it('uses a Bloom filter past exactSetMaxHashes and still flags the same documents', async () => {
    const out = join(dir, 'decon-bloom');
    const manifest = await computeDecon({ source: join(dir, 'src'), evalPaths: [join(dir, 'eval.jsonl')], outputDir: out, exactSetMaxHashes: 10 });
    expect(manifest.filter.kind).toBe('bloom');
    const exact = await readRows(join(dir, 'decon/outputs/main', partFileName(1, 2)));
    const bloom = await readRows(join(out, 'outputs/main', partFileName(1, 2)));
    expect(bloom.map((r) => r['contaminated'])).toEqual(exact.map((r) => r['contaminated']));
  }, 120_000);
});

describe('computeQualityScores()', () => {
  it('scores every part with the shipped model, equal to the streaming scorer, co-partitioned', async () => {
    const python = await curationPython();
    const docs = generateQualityExamples({ seed: 5, count: 120 }).map((e, i) => ({ id: `q-${String(i).padStart(4, '0')}`, text: e.text }));
    const parts = [docs.slice(0, 70), docs.slice(70)];
    for (const [i, rows] of parts.entries()) await writeParquetPart(join(dir, 'qsrc', partFileName(i, 2)), rows, { columns: COLUMNS });
    const out = join(dir, 'quality');
    const manifest = await computeQualityScores({ source: join(dir, 'qsrc'), modelUrl: tinyQualityModelPath(), outputDir: out });
    expect(manifest.documents).toBe(120);
    for (const [i, rows] of parts.entries()) {
      const expected: { id: string; quality_score: number }[] = [];
      for await (const s of scoreWithFasttext(rows, { python, modelPath: tinyQualityModelPath(), label: 'hq' })) expected.push(s);
      expect(await readRows(join(out, 'outputs/main', partFileName(i, 2)))).toEqual(expected);
    }
  }, 120_000);
});
