import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PipelineError } from '../errors.js';
import { openParquetFile } from '../formats/parquet-file.js';
import { readParquetRecords } from '../formats/parquet-records.js';
import type { ParquetColumnSpec } from '../formats/parquet-schema.js';
import { isPlainRunColumn, readPlainRunColumn } from './plain-run-column.js';
import { isPlainRunSchema, writePlainRun } from './plain-run-writer.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plain-run-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const COLUMNS: ParquetColumnSpec[] = [
  { name: 'id', type: 'string', nullable: false, plain: true },
  { name: 'text', type: 'string', nullable: false, plain: true },
  { name: 'fields', type: 'string', nullable: false },
];
const encoder = new TextEncoder();
const decoder = new TextDecoder();

describe('writePlainRun()', () => {
  it('writes one row group of PLAIN uncompressed pages that hyparquet and readPlainRunColumn read back', async () => {
    const url = join(dir, 'run.parquet');
    // texts as UTF-8 bytes (long ones go to the file from these bytes, short ones are copied) and as
    // strings; past a page (1 MiB) and past the staging buffer, so the chunk holds several pages
    const texts = ['', 'a', 'é☃ multi-byte', 'x'.repeat(700_000), 'y'.repeat(900), 'z'.repeat(1024), 'é'.repeat(400_000), 'last'];
    const rows = texts.map((text, i) => ({ id: `id-${i}`, text: i % 2 === 0 ? encoder.encode(text) : text, fields: JSON.stringify({ n: i, s: 'ü' }) }));
    await writePlainRun(url, COLUMNS, rows);

    const records: Record<string, unknown>[] = [];
    for await (const r of readParquetRecords(url)) records.push(r);
    expect(records).toEqual(texts.map((text, i) => ({ id: `id-${i}`, text, fields: JSON.stringify({ n: i, s: 'ü' }) })));

    await using file = await openParquetFile(url);
    expect(file.metadata.row_groups).toHaveLength(1);
    for (const c of ['id', 'text', 'fields']) expect(isPlainRunColumn(file, c)).toBe(true);
    const views = await readPlainRunColumn(file, 0, 'text');
    expect(views.map((v) => decoder.decode(v))).toEqual(texts);
  });

  it('hands a column of short values to the file in pieces, reading back whole across the boundaries', async () => {
    // ~12 MiB of values under the view threshold: all copied, so handed to the stream every 8 MiB instead of at once
    const url = join(dir, 'short.parquet');
    const rows = Array.from({ length: 24_000 }, (_, i) => ({ id: `id-${i}`, text: `${i} ${'s'.repeat(500)}`, fields: '{}' }));
    await writePlainRun(url, COLUMNS, rows);
    await using file = await openParquetFile(url);
    const views = await readPlainRunColumn(file, 0, 'text');
    expect(views.length).toBe(rows.length);
    expect(views.every((v, i) => decoder.decode(v) === rows[i]?.text)).toBe(true);
  });

  it('writes columns of only strings, only bytes, and both the same way', async () => {
    const texts = ['short', 'l'.repeat(5000), '', 'ü'.repeat(3000)];
    const read = async (text: (t: string, i: number) => string | Uint8Array): Promise<Record<string, unknown>[]> => {
      const url = join(dir, `run-${Math.random()}.parquet`);
      await writePlainRun(url, COLUMNS, texts.map((t, i) => ({ id: `${i}`, text: text(t, i), fields: '{}' })));
      const out: Record<string, unknown>[] = [];
      for await (const r of readParquetRecords(url)) out.push(r);
      return out;
    };
    const expected = texts.map((text, i) => ({ id: `${i}`, text, fields: '{}' }));
    expect(await read((t) => t)).toEqual(expected);
    expect(await read((t) => encoder.encode(t))).toEqual(expected);
    expect(await read((t, i) => (i % 2 === 0 ? t : encoder.encode(t)))).toEqual(expected);
  });

  it('writes what toRow makes of each row, calling it once per row', async () => {
    const url = join(dir, 'run.parquet');
    let calls = 0;
    const toRow = (r: Record<string, unknown>): Record<string, unknown> => {
      calls += 1;
      return { id: r['id'], text: r['body'], fields: JSON.stringify({ n: r['n'] }) };
    };
    await writePlainRun(url, COLUMNS, [{ id: 'a', body: 'text a', n: 1 }, { id: 'b', body: 'text b', n: 2 }], toRow);
    const records: Record<string, unknown>[] = [];
    for await (const r of readParquetRecords(url)) records.push(r);
    expect(records).toEqual([
      { id: 'a', text: 'text a', fields: '{"n":1}' },
      { id: 'b', text: 'text b', fields: '{"n":2}' },
    ]);
    expect(calls).toBe(2);
  });

  it('writes an empty run as a valid file of no rows', async () => {
    const url = join(dir, 'run.parquet');
    await writePlainRun(url, COLUMNS, []);
    await using file = await openParquetFile(url);
    expect(Number(file.metadata.num_rows)).toBe(0);
  });

  it('refuses a value that is not a string, naming the column, and leaves nothing at the url', async () => {
    const url = join(dir, 'run.parquet');
    const run = writePlainRun(url, COLUMNS, [
      { id: 'a', text: 'ok', fields: '{}' },
      { id: 'b', text: null, fields: '{}' },
    ]);
    await expect(run).rejects.toSatisfy((e: unknown) => PipelineError.is(e) && e.code === 'PIPELINE_INPUT_INVALID' && e.details?.['column'] === 'text');
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('isPlainRunSchema()', () => {
  it('accepts only non-nullable string columns', () => {
    expect(isPlainRunSchema(COLUMNS)).toBe(true);
    expect(isPlainRunSchema([{ name: 'id', type: 'string' }])).toBe(false);
    expect(isPlainRunSchema([...COLUMNS, { name: 'n', type: 'int64', nullable: false }])).toBe(false);
    expect(isPlainRunSchema([])).toBe(false);
  });
});
