// Bad input through the curation stages: each case fails with a PipelineError whose code and details name
// the file and column, leaves nothing visible in the stage's output, and a rerun after the input is fixed
// finishes from where the failed run stopped (same output directory, its scratch markers kept).
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPartFiles, partFileName } from '../../src/attributes/attribute-dataset.js';
import { computeFuzzyDups } from '../../src/curation/minhash/fuzzy-dups-stage.js';
import { computeMinhashAttrs } from '../../src/curation/minhash/minhash-attrs.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import type { ParquetColumnSpec } from '../../src/formats/parquet-schema.js';
import { readParquetRecords } from '../../src/formats/parquet-records.js';
import { consolidate } from '../../src/steps/consolidate/consolidate.js';
import { normalizeToParquet } from '../../src/steps/normalize/normalize.js';

let root = '';
let n = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipeline-bad-input-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh directory with an input folder `raw/` (created) and an output path `out` (not created). */
async function fresh(): Promise<{ input: string; output: string; dir: string }> {
  const dir = join(root, `case-${n++}`);
  await mkdir(join(dir, 'raw'), { recursive: true });
  return { dir, input: join(dir, 'raw'), output: join(dir, 'out') };
}

const TEXT: ParquetColumnSpec = { name: 'text', type: 'string', nullable: true };
const docsOf = (from: number, count: number): { text: string; n: bigint }[] =>
  Array.from({ length: count }, (_, i) => ({ text: `document ${from + i} about ${'words '.repeat((from + i) % 7)}`, n: BigInt(from + i) }));
const jsonl = (records: object[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');

/** Nothing a reader would take for a result: no outputs, no `.artifact` (the scratch `.work/` may stay for the rerun). */
async function expectNothingVisible(output: string): Promise<void> {
  const entries = await readdir(output).catch(() => [] as string[]);
  expect(entries.filter((e) => e !== '.work')).toEqual([]);
}

async function rowsOfPart(url: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for await (const r of readParquetRecords(url)) rows.push(r);
  return rows;
}

async function rowsOf(dir: string): Promise<Record<string, unknown>[]> {
  return (await Promise.all((await listPartFiles(dir)).map(rowsOfPart))).flat();
}

describe('normalize on bad input', () => {
  // One map task per file (map_task_bytes: 1), so a failure in one file leaves the other files' tasks finished.
  const normalize = (input: string, output: string) => normalizeToParquet({ input_path: input, output_path: output, map_task_bytes: 1, max_parallelism: 1 });

  it('a column typed differently across files: PIPELINE_SCHEMA_MISMATCH naming the column and both files; the fixed file is read on the rerun', async () => {
    const { input, output } = await fresh();
    await writeParquetPart(join(input, 'a.parquet'), docsOf(0, 20), { columns: [TEXT, { name: 'n', type: 'int64' }] });
    const asStrings = docsOf(20, 20).map((d) => ({ ...d, n: `#${d.n}` }));
    await writeParquetPart(join(input, 'b.parquet'), asStrings, { columns: [TEXT, { name: 'n', type: 'string' }] });
    await writeParquetPart(join(input, 'c.parquet'), docsOf(40, 20), { columns: [TEXT, { name: 'n', type: 'int64' }] });
    await expect(normalize(input, output)).rejects.toMatchObject({
      code: 'PIPELINE_SCHEMA_MISMATCH',
      details: { column: 'n', path: join(input, 'b.parquet'), other: join(input, 'a.parquet') },
    });
    await expectNothingVisible(output);
    // The tasks that read the two files forget they finished (a fix may keep a file's size); c's task stays done.
    expect(await readdir(join(output, '.work/map'))).toEqual(['map-00002.done.json']);

    await writeParquetPart(join(input, 'b.parquet'), docsOf(20, 20), { columns: [TEXT, { name: 'n', type: 'int64' }] });
    const result = await normalize(input, output);
    expect(result.counters['normalize/records_in']).toBe(60);
    const ns = (await rowsOf(join(output, 'outputs/main'))).map((r) => r['n']);
    expect(ns.every((v) => typeof v === 'bigint')).toBe(true);
    expect(ns).toHaveLength(60);
  });

  it('a parquet file without the text column, or with a text column that is not a string: PIPELINE_SCHEMA_MISMATCH naming the file and column', async () => {
    const { input, output } = await fresh();
    await writeParquetPart(join(input, 'a.parquet'), docsOf(0, 10), { columns: [TEXT, { name: 'n', type: 'int64' }] });
    await writeParquetPart(join(input, 'b.parquet'), [{ body: 'no text here' }], { columns: [{ name: 'body', type: 'string' }] });
    await expect(normalize(input, output)).rejects.toMatchObject({ code: 'PIPELINE_SCHEMA_MISMATCH', details: { path: join(input, 'b.parquet'), column: 'text' } });
    await expectNothingVisible(output);

    await writeParquetPart(join(input, 'b.parquet'), [{ text: 7n }], { columns: [{ name: 'text', type: 'int64' }] });
    await expect(normalize(input, output)).rejects.toMatchObject({ code: 'PIPELINE_SCHEMA_MISMATCH', details: { path: join(input, 'b.parquet'), column: 'text' } });
    await expectNothingVisible(output);

    await writeParquetPart(join(input, 'b.parquet'), docsOf(10, 5), { columns: [TEXT, { name: 'n', type: 'int64' }] });
    expect((await normalize(input, output)).counters['normalize/unique_records_out']).toBe(15);
  });

  it('null text is dropped and counted; a non-string text value is PIPELINE_INPUT_INVALID naming the file and column', async () => {
    const { input, output } = await fresh();
    await writeFile(join(input, 'a.jsonl'), jsonl([{ text: 'kept' }, { text: null }, { other: 'no text field' }]));
    await writeFile(join(input, 'b.jsonl'), jsonl([{ text: 'fine' }, { text: { nested: 'object' } }]));
    await expect(normalize(input, output)).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: join(input, 'b.jsonl'), column: 'text' } });
    await expectNothingVisible(output);

    await writeFile(join(input, 'b.jsonl'), jsonl([{ text: 'fine' }, { text: 'also fine' }]));
    const result = await normalize(input, output);
    expect(result.counters).toMatchObject({ 'normalize/records_in': 5, 'normalize/empty_text_filtered': 2, 'normalize/unique_records_out': 3 });
  });

  it('invalid UTF-8 in a parquet string: PIPELINE_INPUT_INVALID naming the file, row group and column; in JSON lines the file and line', async () => {
    const { input, output } = await fresh();
    // Uncompressed, so the planted bytes can be swapped in place: "BAD!" becomes 0xff 0xfe 0xfd 0xfc.
    const rows = docsOf(0, 30).map((d, i) => ({ url: `https://example.org/${i}`, text: i === 17 ? `${d.text} BAD!` : d.text }));
    const columns: ParquetColumnSpec[] = [{ name: 'url', type: 'string' }, TEXT];
    await writeParquetPart(join(input, 'a.parquet'), rows, { columns, codec: 'uncompressed', rowGroupRows: 10 });
    const bytes = await readFile(join(input, 'a.parquet'));
    const at = bytes.indexOf('BAD!');
    expect(at).toBeGreaterThan(0);
    bytes.set([0xff, 0xfe, 0xfd, 0xfc], at);
    await writeFile(join(input, 'a.parquet'), bytes);
    await writeFile(join(input, 'b.jsonl'), Buffer.concat([Buffer.from(jsonl([{ text: 'line one' }])), Buffer.from('{"text": "bad '), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]));

    await expect(normalize(input, output)).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_INVALID',
      details: { path: join(input, 'a.parquet'), rowGroup: 1, column: 'text' },
    });
    await expectNothingVisible(output);
    await writeParquetPart(join(input, 'a.parquet'), rows, { columns });
    await expect(normalize(input, output)).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: join(input, 'b.jsonl'), line: 2 } });
    await expectNothingVisible(output);

    await writeFile(join(input, 'b.jsonl'), jsonl([{ text: 'line one' }, { text: 'bad (fixed)' }]));
    expect((await normalize(input, output)).counters['normalize/records_in']).toBe(32);
  });

  it('an empty dataset (a parquet file of no rows, JSON lines without text): PIPELINE_EMPTY_DATASET naming the input and text field', async () => {
    const { input, output } = await fresh();
    await writeParquetPart(join(input, 'a.parquet'), [], { columns: [TEXT] });
    await writeFile(join(input, 'b.jsonl'), jsonl([{ body: 'wrong field' }, { text: '  \n' }]));
    await expect(normalize(input, output)).rejects.toMatchObject({ code: 'PIPELINE_EMPTY_DATASET', details: { path: input, column: 'text' } });
    await expectNothingVisible(output);

    await writeFile(join(input, 'b.jsonl'), jsonl([{ text: 'finally some text' }]));
    expect((await normalize(input, output)).counters['normalize/unique_records_out']).toBe(1);
  });
});

describe('consolidate and fuzzy dedup on bad input', () => {
  /** A normalized source of 60 documents in 3 partitions. */
  async function normalized(dir: string): Promise<{ main: string; parts: string[] }> {
    await mkdir(join(dir, 'raw'), { recursive: true });
    await writeFile(join(dir, 'raw', 'a.jsonl'), jsonl(docsOf(0, 60).map((d) => ({ text: d.text }))));
    await normalizeToParquet({ input_path: join(dir, 'raw'), output_path: join(dir, 'norm'), target_partition_bytes: 1000 });
    const main = join(dir, 'norm', 'outputs/main');
    return { main, parts: await listPartFiles(main) };
  }

  it('attribute datasets whose partitions do not match the source: PIPELINE_SCHEMA_MISMATCH naming the dataset, nothing written; a rerun after the stage is redone succeeds', async () => {
    const { dir } = await fresh();
    const { main, parts } = await normalized(dir);
    expect(parts.length).toBeGreaterThan(1);
    const attr = join(dir, 'attr');
    // Part i of an attribute dataset cut into `total` parts, with the ids of source part i.
    const writeAttr = async (i: number, total: number): Promise<void> => {
      const rows = (await rowsOfPart(parts[i] as string)).map((r) => ({ id: r['id'], score: 1 }));
      await writeParquetPart(join(attr, partFileName(i, total)), rows, { columns: [{ name: 'id', type: 'string' }, { name: 'score', type: 'float64' }] });
    };
    // One part short: the dataset was cut for another partitioning of the source.
    for (let i = 0; i < parts.length - 1; i++) await writeAttr(i, parts.length - 1);
    const output = join(dir, 'filtered');
    const run = () => consolidate({ input_path: main, output_path: output, filters: [{ type: 'classify', attribute_path: attr, name: 'score', lower_threshold: 0.5 }] });
    await expect(run()).rejects.toMatchObject({ code: 'PIPELINE_SCHEMA_MISMATCH', details: { path: attr, source: main } });
    await expectNothingVisible(output);

    await rm(attr, { recursive: true });
    for (let i = 0; i < parts.length; i++) await writeAttr(i, parts.length);
    expect(await run()).toMatchObject({ docs_in: 60, docs_out: 60 });
  });

  it('MinHash params that differ between datasets deduplicated together: PIPELINE_SCHEMA_MISMATCH naming the dataset, nothing written; a rerun with matching params succeeds', async () => {
    const { dir } = await fresh();
    const { main } = await normalized(dir);
    await computeMinhashAttrs({ source: main, outputDir: join(dir, 'minhash-a') });
    await computeMinhashAttrs({ source: main, outputDir: join(dir, 'minhash-b'), params: { seed: 7 } });
    const output = join(dir, 'dups');
    const run = () => computeFuzzyDups({ inputs: [join(dir, 'minhash-a'), join(dir, 'minhash-b')], outputDir: output, numPartitions: 2 });
    await expect(run()).rejects.toMatchObject({ code: 'PIPELINE_SCHEMA_MISMATCH', details: { dataset: join(dir, 'minhash-b') } });
    await expectNothingVisible(output);

    await rm(join(dir, 'minhash-b'), { recursive: true });
    await computeMinhashAttrs({ source: main, outputDir: join(dir, 'minhash-b') });
    await run();
    // The same documents twice: every copy in the second dataset is a duplicate of the first's.
    const second = await rowsOf(join(output, 'outputs/source_001'));
    expect(second).toHaveLength(60);
    expect(second.every((r) => r['fuzzy_duplicate'] === true)).toBe(true);
  });
});
