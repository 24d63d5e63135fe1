import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Executor, outputPathOf } from '@marin/executor';
import { silentLogger } from '@marin/rigging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partFileName } from '../../src/attributes/attribute-dataset.js';
import { tinyQualityModelPath } from '../../src/curation/curation-assets.js';
import { generateContaminatedCorpus } from '../../src/curation/synthetic/contaminated-corpus.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../../src/formats/parquet-records.js';
import { defaultConsolidate } from '../../src/steps/consolidate/default-consolidate.js';
import { defaultDecontaminate, defaultFuzzyDedup, defaultMinhash, defaultQualityScore } from '../../src/steps/curation/curation-steps.js';
import { curationPython } from '../helpers/curation-python.js';

const COLUMNS = [
  { name: 'id', type: 'string' as const, nullable: false },
  { name: 'text', type: 'string' as const, nullable: true },
];

let dir: string;

beforeAll(async () => {
  await curationPython();
  dir = await mkdtemp(join(tmpdir(), 'curation-steps-'));
  const corpus = generateContaminatedCorpus({ seed: 3, documents: 200, rate: 0.1 });
  // Plant an exact copy so fuzzy dedup has something to find.
  const docs = corpus.docs.map((d) => ({ id: d.id, text: d.text }));
  docs[150] = { id: docs[150]?.id ?? '', text: docs[20]?.text ?? '' };
  for (const [i, rows] of [docs.slice(0, 100), docs.slice(100)].entries()) await writeParquetPart(join(dir, 'data/outputs/main', partFileName(i, 2)), rows, { columns: COLUMNS });
  await writeFile(join(dir, 'eval.jsonl'), corpus.eval.map((e) => JSON.stringify(e)).join('\n') + '\n');
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('curation steps on the executor', () => {
  it('run MinHash → fuzzy dedup, decontamination and quality scores as versioned steps, and a rerun skips them', async () => {
    const source = join(dir, 'data/outputs/main');
    const minhash = defaultMinhash('synthetic', source);
    const dups = defaultFuzzyDedup('synthetic', [minhash], { numPartitions: 2 });
    const decon = defaultDecontaminate('synthetic', source, join(dir, 'eval.jsonl'));
    const quality = defaultQualityScore('synthetic', source, tinyQualityModelPath());
    const prefix = join(dir, 'prefix');
    const paths = await new Executor({ prefix, logger: silentLogger }).run([dups, decon, quality]);
    const out = (step: object): string => paths.get(step as never) ?? '';
    const rows = async (url: string): Promise<Record<string, unknown>[]> => {
      const all: Record<string, unknown>[] = [];
      for await (const r of readParquetRecords(url)) all.push(r);
      return all;
    };

    expect(out(minhash)).toMatch(/attributes\/minhash\/synthetic-[0-9a-f]{6}$/);
    const dupRows = await rows(join(out(dups), 'outputs/source_000', partFileName(1, 2)));
    expect(dupRows[50]).toMatchObject({ fuzzy_duplicate: true, dup_cluster_id: 'doc-00000020' });
    const deconRows = [...(await rows(join(out(decon), 'outputs/main', partFileName(0, 2)))), ...(await rows(join(out(decon), 'outputs/main', partFileName(1, 2))))];
    expect(deconRows).toHaveLength(200);
    expect(deconRows.some((r) => r['contaminated'] === true)).toBe(true);
    const qualityRows = await rows(join(out(quality), 'outputs/main', partFileName(0, 2)));
    expect(qualityRows.every((r) => typeof r['quality_score'] === 'number')).toBe(true);

    const manifest = join(out(dups), 'fuzzy_dups.json');
    const before = (await stat(manifest)).mtimeMs;
    const again = await new Executor({ prefix, logger: silentLogger }).run([dups, decon, quality]);
    expect(again.get(dups as never)).toBe(out(dups));
    expect((await stat(manifest)).mtimeMs).toBe(before);
    expect(JSON.parse(await readFile(join(out(minhash), 'minhash_params.json'), 'utf8'))).toMatchObject({ params: { num_perms: 286, num_bands: 26, ngram_size: 5, seed: 42 } });
  }, 180_000);

  it('feeds consolidate: dropping fuzzy duplicates and contaminated documents by their co-partitioned attributes', async () => {
    const source = join(dir, 'data/outputs/main');
    const dups = defaultFuzzyDedup('synthetic', [defaultMinhash('synthetic', source)], { numPartitions: 2 });
    const decon = defaultDecontaminate('synthetic', source, join(dir, 'eval.jsonl'));
    const kept = defaultConsolidate('synthetic-clean', source, [
      { type: 'remove_docs', attribute_path: outputPathOf(dups, 'outputs/source_000'), name: 'fuzzy_duplicate' },
      { type: 'remove_docs', attribute_path: outputPathOf(decon, 'outputs/main'), name: 'contaminated' },
    ]);
    const paths = await new Executor({ prefix: join(dir, 'prefix'), logger: silentLogger }).run([kept]);
    const read = async (url: string): Promise<Record<string, unknown>[]> => {
      const all: Record<string, unknown>[] = [];
      for await (const r of readParquetRecords(url)) all.push(r);
      return all;
    };
    const drop = new Set<string>();
    for (const i of [0, 1]) {
      for (const r of await read(join(paths.get(dups) ?? '', 'outputs/source_000', partFileName(i, 2)))) if (r['fuzzy_duplicate'] === true) drop.add(r['id'] as string);
      for (const r of await read(join(paths.get(decon) ?? '', 'outputs/main', partFileName(i, 2)))) if (r['contaminated'] === true) drop.add(r['id'] as string);
    }
    expect(drop.has('doc-00000150')).toBe(true);
    const survivors: string[] = [];
    for (const i of [0, 1]) for (const r of await read(join(paths.get(kept) ?? '', partFileName(i, 2)))) survivors.push(r['id'] as string);
    expect(survivors).toHaveLength(200 - drop.size);
    expect(survivors.some((id) => drop.has(id))).toBe(false);
  }, 180_000);
});
