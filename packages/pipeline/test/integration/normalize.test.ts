import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { silentLogger } from '@marin/executor';
import { createLocalClient, withClient } from '@marin/fray';
import type { Client, JobRequest } from '@marin/fray';
import { describe, expect, it } from 'vitest';
import { compress } from 'zstd-napi';
import { partitionOfHexId } from '../../src/dataflow/partition-of.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../../src/formats/parquet-records.js';
import { normalizeToParquet } from '../../src/steps/normalize/normalize.js';
import { runCurationPython } from '../helpers/curation-python.js';

interface TempDir extends AsyncDisposable {
  path: string;
}

async function tempDir(): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), 'pipeline-normalize-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

const jsonl = (records: object[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x)));

/** A corpus with planted exact duplicates, blank and null texts, long whitespace runs in Python's set. */
function corpus(n: number, offset: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, j) => {
    const i = offset + j;
    const text =
      i % 10 === 3 ? '   \n\t ' : i % 10 === 7 ? null : i % 5 === 1 ? `shared text ${i % 3}` : i % 13 === 0 ? `gap${'\u3000\x1c '.repeat(60)}end ${i}` : `doc ${i} ünïcödé ✓ ${'w'.repeat(i % 50)}`;
    return { id: `src-${i}`, text, url: `https://example.com/${i}`, score: i / 3, tags: { lang: 'en', n: i } };
  });
}

async function readDir(dir: string): Promise<{ name: string; rows: Record<string, unknown>[] }[]> {
  const out = [];
  for (const name of (await readdir(dir)).sort()) {
    const rows: Record<string, unknown>[] = [];
    for await (const r of readParquetRecords(join(dir, name))) rows.push(r);
    out.push({ name, rows });
  }
  return out;
}

interface Oracle {
  main: Record<string, Record<string, unknown>>;
  dups: number;
  filtered: number;
  compacted: number;
}

describe('normalizeToParquet()', () => {
  it("matches Marin's normalize record for record on plain, gzip and zstd JSON lines, with exact dedup and sorted partitions", async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    await mkdir(join(input, 'sub'), { recursive: true });
    const a = corpus(120, 0);
    const b = corpus(120, 120);
    const c = corpus(120, 240);
    await writeFile(join(input, 'a.jsonl'), jsonl(a));
    await writeFile(join(input, 'sub', 'b.jsonl.gz'), gzipSync(jsonl(b)));
    await writeFile(join(input, 'sub', 'c.jsonl.zst'), compress(Buffer.from(jsonl(c))));
    await writeFile(join(input, '.hidden.jsonl'), jsonl([{ text: 'never read' }]));
    const output = join(dir.path, 'normalized');
    const result = await normalizeToParquet({ input_path: input, output_path: output, target_partition_bytes: 4000, map_task_bytes: 1 });

    const oracle = JSON.parse(
      await runCurationPython('normalize_oracle.py', [], JSON.stringify({ records: [...a, ...b, ...c], text_field: 'text', id_field: 'id', max_whitespace_run_chars: 128 })),
    ) as Oracle;
    const main = await readDir(join(output, 'outputs/main'));
    const total = main.length;
    expect(total).toBeGreaterThan(1);
    expect(main.map((p) => p.name)).toEqual(Array.from({ length: total }, (_, i) => `part-${String(i).padStart(5, '0')}-of-${String(total).padStart(5, '0')}.parquet`));
    const byId = new Map<string, unknown>();
    main.forEach((part, shard) => {
      const ids = part.rows.map((r) => r['id'] as string);
      expect(ids, part.name).toEqual([...ids].sort());
      for (const r of part.rows) {
        expect(partitionOfHexId(r['id'] as string, total)).toBe(shard);
        byId.set(r['id'] as string, asJson(r));
      }
    });
    expect(byId.size).toBe(Object.keys(oracle.main).length);
    for (const [id, expected] of Object.entries(oracle.main)) expect(byId.get(id), id).toEqual(expected);
    const dups = (await readDir(join(output, 'outputs/dups'))).flatMap((p) => p.rows);
    expect(dups).toHaveLength(oracle.dups);
    expect(result.counters).toEqual({
      'normalize/records_in': 360,
      'normalize/empty_text_filtered': oracle.filtered,
      datakit_normalize_compacted_whitespace: oracle.compacted,
      'normalize/unique_records_out': byId.size,
      'normalize/duplicate_records_out': oracle.dups,
    });
    expect(oracle.compacted).toBeGreaterThan(0);
    expect(await readdir(output)).toEqual(expect.arrayContaining(['.artifact', 'outputs']));
    expect(await readdir(output)).not.toContain('.work');
  });

  it('passes parquet columns through with their types, source ids as source_id, and drops them when bare', async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    const records = corpus(40, 0).map((r, i) => ({ ...r, id: BigInt(i) }));
    const columns = [
      { name: 'id', type: 'int64' },
      { name: 'text', type: 'string' },
      { name: 'url', type: 'string' },
      { name: 'score', type: 'float64' },
    ] as const;
    await writeParquetPart(join(input, 'train-00000.parquet'), records, { columns: [...columns], rowGroupRows: 7 });
    const output = join(dir.path, 'normalized');
    await normalizeToParquet({ input_path: input, output_path: output });
    const [part] = await readDir(join(output, 'outputs/main'));
    expect(part?.name).toBe('part-00000-of-00001.parquet');
    const row = part?.rows.find((r) => r['source_id'] === 2n);
    expect(row).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), text: corpus(40, 0)[2]?.['text'], source_id: 2n, url: 'https://example.com/2', score: 2 / 3 });
    const [back] = (await runCurationPython('parquet_read.py', [join(output, 'outputs/main', 'part-00000-of-00001.parquet')]))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { schema: Record<string, string> });
    expect(back?.schema).toEqual({ id: 'string', text: 'string', source_id: 'int64', url: 'string', score: 'double' });

    const bare = join(dir.path, 'bare');
    await normalizeToParquet({ input_path: input, output_path: bare, bare: true });
    const [barePart] = await readDir(join(bare, 'outputs/main'));
    expect(Object.keys(barePart?.rows[0] ?? {})).toEqual(['id', 'text', 'source_id']);
  });

  it('resumes after a failed run: finished map tasks are kept and nothing partial is visible', async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    await mkdir(input, { recursive: true });
    await writeFile(join(input, 'a.jsonl'), jsonl(corpus(50, 0)));
    await writeFile(join(input, 'b.jsonl.gz'), gzipSync(jsonl(corpus(50, 50))).subarray(0, 200));
    const output = join(dir.path, 'normalized');
    await expect(normalizeToParquet({ input_path: input, output_path: output, map_task_bytes: 1, max_parallelism: 1 })).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_INVALID',
      details: { path: join(input, 'b.jsonl.gz') },
    });
    expect(await readdir(join(output, '.work/map'))).toEqual(['map-00000.done.json']);
    expect(await readdir(output)).not.toContain('outputs');
    await writeFile(join(input, 'b.jsonl.gz'), gzipSync(jsonl(corpus(50, 50))));
    const result = await normalizeToParquet({ input_path: input, output_path: output, map_task_bytes: 1, max_parallelism: 1 });
    expect(result.counters['normalize/records_in']).toBe(100);
  });

  it('maps and reduces in one task when the input fits one map task, spilling sorted runs past spill_bytes, with the same outputs', async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    await mkdir(input, { recursive: true });
    await writeFile(join(input, 'a.jsonl'), jsonl(corpus(150, 0)));
    await writeParquetPart(join(input, 'b.parquet'), corpus(150, 150), {
      columns: [
        { name: 'id', type: 'string' },
        { name: 'text', type: 'string' },
        { name: 'url', type: 'string' },
        { name: 'score', type: 'float64' },
      ],
      rowGroupRows: 40,
    });
    const run = async (name: string, options: { map_task_bytes?: number; spill_bytes?: number }) => {
      const output = join(dir.path, name);
      const result = await normalizeToParquet({ input_path: input, output_path: output, target_partition_bytes: 3000, ...options });
      return { counters: result.counters, main: await readDir(join(output, 'outputs/main')), dups: await readDir(join(output, 'outputs/dups')) };
    };
    const shuffled = await run('map-reduce', { map_task_bytes: 1 });
    expect(shuffled.main.length).toBeGreaterThan(1);
    expect(shuffled.counters['normalize/duplicate_records_out']).toBeGreaterThan(0);
    // one task, all in memory; then one task spilling many small runs (duplicates land in different runs)
    expect(await run('single', {})).toEqual(shuffled);
    expect(await run('single-spilling', { spill_bytes: 2000 })).toEqual(shuffled);

    await using local = createLocalClient({ logger: silentLogger });
    const submitted: JobRequest[] = [];
    const client: Client = { ...local, submit: (request, options) => (submitted.push(request), local.submit(request, options)) };
    const output = join(dir.path, 'single-job');
    await withClient(client, () => normalizeToParquet({ input_path: input, output_path: output, target_partition_bytes: 3000, resources: { cpu: 1, ram: '1g' } }));
    expect(submitted.map((r) => (r.entrypoint as { exportName?: string }).exportName)).toEqual(['normalizeSingleTask']);
    expect(await readDir(join(output, 'outputs/main'))).toEqual(shuffled.main);
  });

  it('keeps a column named fields (strings, objects) as it is on every path: one task, spilling, map and reduce', async () => {
    await using dir = await tempDir();
    const records = Array.from({ length: 60 }, (_, i) => ({ id: `s-${i}`, text: `doc ${i % 50}` }));
    // strings that look like the shuffle's own encoding of fields, in parquet; objects in JSON lines
    const strings = join(dir.path, 'strings');
    await mkdir(strings, { recursive: true });
    await writeParquetPart(
      join(strings, 'b.parquet'),
      records.map((r, i) => ({ ...r, fields: i % 2 === 0 ? `{"not":"json ${i}` : JSON.stringify({ url: `u${i}` }) })),
      { columns: [{ name: 'id', type: 'string' }, { name: 'text', type: 'string' }, { name: 'fields', type: 'string' }], rowGroupRows: 20 },
    );
    const objects = join(dir.path, 'objects');
    await mkdir(objects, { recursive: true });
    await writeFile(join(objects, 'a.jsonl'), jsonl(records.map((r, i) => ({ ...r, fields: { tag: `t${i}` } }))));
    const run = async (input: string, name: string, options: { map_task_bytes?: number; spill_bytes?: number }) => {
      const output = join(dir.path, name);
      await normalizeToParquet({ input_path: input, output_path: output, target_partition_bytes: 1000, ...options });
      const rows = [...(await readDir(join(output, 'outputs/main'))), ...(await readDir(join(output, 'outputs/dups')))].flatMap((f) => f.rows);
      return Object.fromEntries(rows.map((r) => [r['source_id'] as string, asJson(r['fields'])]));
    };
    const expectedStrings = Object.fromEntries(records.map((r, i) => [r.id, i % 2 === 0 ? `{"not":"json ${i}` : JSON.stringify({ url: `u${i}` })]));
    const expectedObjects = Object.fromEntries(records.map((r, i) => [r.id, { tag: `t${i}` }]));
    for (const options of [{}, { spill_bytes: 500 }, { map_task_bytes: 1 }]) {
      expect(await run(strings, `strings-${JSON.stringify(options)}`, options)).toEqual(expectedStrings);
      expect(await run(objects, `objects-${JSON.stringify(options)}`, options)).toEqual(expectedObjects);
    }
  });

  it('runs its map and reduce tasks as Fray jobs of @marin/pipeline', async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    await mkdir(input, { recursive: true });
    await writeFile(join(input, 'a.jsonl'), jsonl(corpus(30, 0)));
    await writeFile(join(input, 'b.jsonl'), jsonl(corpus(30, 30)));
    await using local = createLocalClient({ logger: silentLogger });
    const submitted: JobRequest[] = [];
    const client: Client = { ...local, submit: (request, options) => (submitted.push(request), local.submit(request, options)) };
    const output = join(dir.path, 'normalized');
    const result = await withClient(client, () =>
      normalizeToParquet({ input_path: input, output_path: output, map_task_bytes: 1, resources: { cpu: 1, ram: '1g' } }),
    );
    expect(submitted.map((r) => (r.entrypoint as { exportName?: string }).exportName)).toEqual(['normalizeMapTask', 'normalizeMapTask', 'normalizeReduceTask']);
    expect(result.counters['normalize/records_in']).toBe(60);
  });
});

describe('normalizeToParquet() on bad input', () => {
  async function expectNothingVisible(output: string): Promise<void> {
    const entries = await readdir(output).catch(() => []);
    expect(entries).not.toContain('outputs');
    expect(entries).not.toContain('.artifact');
  }

  it('refuses a column typed differently across files, naming the column and both files', async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    await writeParquetPart(join(input, 'a.parquet'), [{ text: 'a', n: 1n }], { columns: [{ name: 'text', type: 'string' }, { name: 'n', type: 'int64' }] });
    await writeParquetPart(join(input, 'b.parquet'), [{ text: 'b', n: 'one' }], { columns: [{ name: 'text', type: 'string' }, { name: 'n', type: 'string' }] });
    const output = join(dir.path, 'out');
    await expect(normalizeToParquet({ input_path: input, output_path: output })).rejects.toMatchObject({
      code: 'PIPELINE_SCHEMA_MISMATCH',
      details: { column: 'n', path: join(input, 'b.parquet'), other: join(input, 'a.parquet') },
    });
    await expectNothingVisible(output);
  });

  it('refuses a parquet file without the text column', async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    await writeParquetPart(join(input, 'a.parquet'), [{ body: 'a' }], { columns: [{ name: 'body', type: 'string' }] });
    await expect(normalizeToParquet({ input_path: input, output_path: join(dir.path, 'out') })).rejects.toMatchObject({
      code: 'PIPELINE_SCHEMA_MISMATCH',
      details: { column: 'text', path: join(input, 'a.parquet') },
    });
  });

  it('refuses non-string text and invalid UTF-8, naming the file', async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    await mkdir(input, { recursive: true });
    await writeFile(join(input, 'a.jsonl'), jsonl([{ text: 'fine' }, { text: 42 }]));
    await expect(normalizeToParquet({ input_path: input, output_path: join(dir.path, 'out') })).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_INVALID',
      details: { path: join(input, 'a.jsonl'), column: 'text' },
    });
    await writeFile(join(input, 'a.jsonl'), Buffer.concat([Buffer.from('{"text": "bad '), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]));
    await expect(normalizeToParquet({ input_path: input, output_path: join(dir.path, 'out') })).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_INVALID',
      details: { path: join(input, 'a.jsonl') },
    });
    await expectNothingVisible(join(dir.path, 'out'));
  });

  it('refuses a dataset without any text as PIPELINE_EMPTY_DATASET', async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    await mkdir(input, { recursive: true });
    await writeFile(join(input, 'a.jsonl'), jsonl([{ body: 'wrong field' }, { text: '  ' }]));
    const output = join(dir.path, 'out');
    await expect(normalizeToParquet({ input_path: input, output_path: output })).rejects.toMatchObject({ code: 'PIPELINE_EMPTY_DATASET' });
    await expectNothingVisible(output);
  });

  it('carries a 100 MB single document through, its whitespace runs compacted', async () => {
    await using dir = await tempDir();
    const input = join(dir.path, 'raw');
    await mkdir(input, { recursive: true });
    const big = `${'word '.repeat(10_000_000)}${' '.repeat(1000)}${'x'.repeat(49_999_000)}`;
    await writeFile(join(input, 'a.jsonl'), jsonl([{ id: 'big', text: big }, { id: 'small', text: 'small' }]));
    const output = join(dir.path, 'out');
    const result = await normalizeToParquet({ input_path: input, output_path: output });
    expect(result.counters).toMatchObject({ 'normalize/unique_records_out': 2, datakit_normalize_compacted_whitespace: 1 });
    const rows = (await readDir(join(output, 'outputs/main'))).flatMap((p) => p.rows);
    const bigRow = rows.find((r) => r['source_id'] === 'big');
    expect((bigRow?.['text'] as string).length).toBe(big.length - 1001 + 128);
  });

  it('refuses an input directory without record files', async () => {
    await using dir = await tempDir();
    await mkdir(join(dir.path, 'raw'));
    await expect(normalizeToParquet({ input_path: join(dir.path, 'raw'), output_path: join(dir.path, 'out') })).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_NOT_FOUND',
    });
  });
});
