import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@marin/executor';
import { createLocalClient, withClient } from '@marin/fray';
import type { Client, JobRequest } from '@marin/fray';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partFileName } from '../../src/attributes/attribute-dataset.js';
import { fuzzyDedupInMemory } from '../../src/curation/minhash/fuzzy-dedup.js';
import { computeFuzzyDups } from '../../src/curation/minhash/fuzzy-dups-stage.js';
import { computeMinhashAttrs } from '../../src/curation/minhash/minhash-attrs.js';
import { parseMinHashParams } from '../../src/curation/minhash/minhash-params.js';
import { generateSyntheticCorpus } from '../../src/curation/synthetic/synthetic-corpus.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../../src/formats/parquet-records.js';

const COLUMNS = [
  { name: 'id', type: 'string' as const, nullable: false },
  { name: 'text', type: 'string' as const, nullable: true },
];
type Doc = { id: string; text: string | null };

let dir: string;
let web: Doc[][];
let books: Doc[][];

async function writeDataset(path: string, parts: Doc[][]): Promise<void> {
  for (const [i, rows] of parts.entries()) await writeParquetPart(join(path, partFileName(i, parts.length)), rows, { columns: COLUMNS });
}

async function readRows(url: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of readParquetRecords(url)) out.push(r);
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fuzzy-dups-'));
  const docs = generateSyntheticCorpus({ seed: 31, documents: 600, nearDuplicateRate: 0.15 }).map((d) => ({ id: d.id, text: d.text as string | null }));
  web = [docs.slice(0, 200), docs.slice(200, 400), docs.slice(400, 600)];
  // A second dataset: copies of some web documents under their own ids, one reusing a web id, new text, an empty text.
  const extra = generateSyntheticCorpus({ seed: 32, documents: 40, exactDuplicateRate: 0, nearDuplicateRate: 0 });
  books = [
    [{ id: 'book-0001', text: docs[10]?.text ?? '' }, { id: 'book-0002', text: extra[0]?.text ?? '' }, { id: 'book-0003', text: null }],
    [{ id: docs[250]?.id ?? '', text: docs[250]?.text ?? '' }, ...extra.slice(1, 20).map((d, i) => ({ id: `book-1${String(i).padStart(3, '0')}`, text: d.text }))],
  ];
  await writeDataset(join(dir, 'web'), web);
  await writeDataset(join(dir, 'books'), books);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('computeMinhashAttrs() + computeFuzzyDups() on storage files', () => {
  it('gives exactly the in-memory result across two datasets, co-partitioned, and a rerun reuses everything', async () => {
    const params = parseMinHashParams();
    const webMinhash = await computeMinhashAttrs({ source: join(dir, 'web'), outputDir: join(dir, 'minhash-web'), maxParallelism: 2 });
    const booksMinhash = await computeMinhashAttrs({ source: join(dir, 'books'), outputDir: join(dir, 'minhash-books') });
    expect(webMinhash.counters).toEqual({ documents: 600, emptySignatures: 0, textTruncated: 0 });
    expect(booksMinhash.counters.emptySignatures).toBe(1);

    const out = join(dir, 'dups');
    const manifest = await computeFuzzyDups({ inputs: [join(dir, 'minhash-web'), join(dir, 'minhash-books')], outputDir: out, numPartitions: 3 });
    expect(manifest.sources.map((s) => s.attr_dir)).toEqual([join(out, 'outputs/source_000'), join(out, 'outputs/source_001')]);

    const expected = await fuzzyDedupInMemory(
      [
        { name: 'web', parts: web.map((rows, i) => ({ name: String(i), records: () => rows })) },
        { name: 'books', parts: books.map((rows, i) => ({ name: String(i), records: () => rows })) },
      ],
      params,
    );
    for (const [s, dataset] of [web, books].entries()) {
      for (const [i] of dataset.entries()) {
        const rows = await readRows(join(out, `outputs/source_00${s}`, partFileName(i, dataset.length)));
        expect(rows).toEqual(expected.attributes[s]?.parts[i]?.rows);
      }
    }
    const bookRows = await readRows(join(out, 'outputs/source_001', partFileName(0, 2)));
    const webRows = await readRows(join(out, 'outputs/source_000', partFileName(0, 3)));
    // The smallest id of a cluster is its canonical document, whichever dataset holds it ("book-…" < "doc-…").
    expect(bookRows[0]).toEqual({ id: 'book-0001', fuzzy_duplicate: false, dup_cluster_id: 'book-0001', is_cluster_canonical: true });
    expect(webRows[10]).toMatchObject({ fuzzy_duplicate: true, dup_cluster_id: 'book-0001' });
    expect(bookRows[2]).toEqual({ id: 'book-0003', fuzzy_duplicate: false, dup_cluster_id: null, is_cluster_canonical: false });
    // The same id in two datasets stays two documents: the web one is canonical, the book copy a duplicate.
    const sameId = (await readRows(join(out, 'outputs/source_001', partFileName(1, 2))))[0];
    expect(sameId).toMatchObject({ id: web[1]?.[50]?.id, fuzzy_duplicate: true, is_cluster_canonical: false });
    expect(manifest.counters).toMatchObject({ documents: 623, duplicates: expected.counters.duplicates, clusters: expected.counters.clusters });

    expect(await computeFuzzyDups({ inputs: [join(dir, 'minhash-web'), join(dir, 'minhash-books')], outputDir: out })).toEqual(manifest);
  }, 120_000);

  it('resumes: a lost attribute part and its marker are redone, the rest reused, with the same result', async () => {
    const out = join(dir, 'dups-resume');
    const inputs = [join(dir, 'minhash-web')];
    await computeMinhashAttrs({ source: join(dir, 'web'), outputDir: inputs[0] as string });
    await computeFuzzyDups({ inputs, outputDir: out, numPartitions: 2 });
    const target = join(out, 'outputs/source_000', partFileName(1, 3));
    const before = await readRows(target);
    await rm(target);
    await rm(join(out, '.work/attributes/000-part-00001-of-00003.done.json'));
    await rm(join(out, 'fuzzy_dups.json'));
    await computeFuzzyDups({ inputs, outputDir: out, numPartitions: 2 });
    expect(await readRows(target)).toEqual(before);
  }, 120_000);

  it('refuses inputs whose MinHash params differ, naming the input, and an unfinished MinHash dataset', async () => {
    await computeMinhashAttrs({ source: join(dir, 'books'), outputDir: join(dir, 'minhash-books-seed7'), params: { seed: 7 } });
    await expect(computeFuzzyDups({ inputs: [join(dir, 'minhash-web'), join(dir, 'minhash-books-seed7')], outputDir: join(dir, 'bad') })).rejects.toMatchObject({
      code: 'PIPELINE_SCHEMA_MISMATCH',
      details: { dataset: join(dir, 'minhash-books-seed7') },
    });
    await expect(computeFuzzyDups({ inputs: [join(dir, 'web')], outputDir: join(dir, 'bad2') })).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND' });
  }, 120_000);

  it('runs every task as a Fray job calling the package export, with the same attributes', async () => {
    await using local = createLocalClient({ logger: silentLogger });
    const submitted: JobRequest[] = [];
    const client: Client = { ...local, submit: (request, options) => (submitted.push(request), local.submit(request, options)) };
    const resources = { cpu: 1, ram: '1g' };
    await withClient(client, async () => {
      await computeMinhashAttrs({ source: join(dir, 'books'), outputDir: join(dir, 'fray-minhash'), resources });
      await computeFuzzyDups({ inputs: [join(dir, 'minhash-web'), join(dir, 'fray-minhash')], outputDir: join(dir, 'fray-dups'), numPartitions: 3, resources });
    });
    const names = submitted.map((r) => (r.entrypoint as { exportName?: string }).exportName);
    expect(new Set(names)).toEqual(new Set(['minhashPartTask', 'fuzzyDupsMapTask', 'fuzzyDupsBucketsTask', 'fuzzyDupsComponentsTask', 'fuzzyDupsAttributesTask']));
    expect(names.filter((n) => n === 'fuzzyDupsBucketsTask')).toHaveLength(3);
    for (const [s, parts] of [[0, 3], [1, 2]] as const) {
      for (let i = 0; i < parts; i++) {
        const name = partFileName(i, parts);
        expect(await readRows(join(dir, 'fray-dups/outputs', `source_00${s}`, name))).toEqual(await readRows(join(dir, 'dups/outputs', `source_00${s}`, name)));
      }
    }
  }, 180_000);
});
