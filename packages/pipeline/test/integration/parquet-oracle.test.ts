import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openParquetFile } from '../../src/formats/parquet-file.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../../src/formats/parquet-records.js';
import { readParquetUtf8Columns } from '../../src/formats/parquet-utf8-column.js';
import { utf8StringAt } from '../../src/formats/utf8-column.js';
import { schemaElementsOf } from '../../src/formats/parquet-schema.js';
import type { ParquetColumnSpec } from '../../src/formats/parquet-schema.js';
import { runCurationPython } from '../helpers/curation-python.js';

interface TempDir extends AsyncDisposable {
  path: string;
}

async function tempDir(): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), 'pipeline-parquet-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

/** Our records in pyarrow's to_pylist JSON shape: INT64 bigints become numbers. */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x)));

async function readAll(url: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const r of readParquetRecords(url)) out.push(asJson(r));
  return out;
}

interface OracleFile {
  file: string;
  schema?: Record<string, string>;
  rows: unknown[];
}

const parseLines = (stdout: string): OracleFile[] =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as OracleFile);

describe('parquet reading against pyarrow', () => {
  it('reads every codec, dictionary and plain encodings, data pages v1 and v2 record by record as pyarrow does', async () => {
    await using dir = await tempDir();
    const files = parseLines(await runCurationPython('parquet_fixtures.py', [dir.path]));
    // none, snappy, gzip, brotli, zstd, lz4 (LZ4_RAW) × dictionary/plain × page v1/v2
    expect(files).toHaveLength(24);
    for (const { file, rows } of files) {
      const url = join(dir.path, file);
      await using meta = await openParquetFile(url);
      // 257 rows in groups of 50: many row groups; nested, large_string, nulls and a 1.2 MB string inside
      expect(meta.rowGroups.map((g) => g.numRows), file).toEqual([50, 50, 50, 50, 50, 7]);
      expect(meta.columns).toEqual(['id', 'text', 'large', 'score', 'flag', 'source', 'meta', 'tags']);
      const got = await readAll(url);
      expect(got.length, file).toBe(rows.length);
      for (let i = 0; i < rows.length; i++) expect(got[i], `${file} row ${i}`).toEqual(rows[i]);
      expect((got[100] as { text: string }).text.length).toBeGreaterThan(1_000_000);
    }
  });

  it('reads string columns as UTF-8 bytes and offsets (every codec, encoding, page version; nulls, large_string) as pyarrow does', async () => {
    await using dir = await tempDir();
    const files = parseLines(await runCurationPython('parquet_fixtures.py', [dir.path]));
    expect(files).toHaveLength(24);
    for (const { file, rows } of files) {
      const url = join(dir.path, file);
      for (const name of ['text', 'large', 'source']) {
        const got: (string | null)[] = [];
        const groups: number[] = [];
        for await (const { rowGroup, column } of readParquetUtf8Columns(url, name)) {
          groups.push(rowGroup);
          expect(column.offsets.length, `${file} ${name}`).toBe(column.length + 1);
          for (let i = 0; i < column.length; i++) got.push(utf8StringAt(column, i));
        }
        expect(groups, file).toEqual([0, 1, 2, 3, 4, 5]);
        expect(got, `${file} ${name}`).toEqual(rows.map((r) => (r as Record<string, string | null>)[name]));
      }
    }
  });

  it('reads one row group at a time, in any order', async () => {
    await using dir = await tempDir();
    const [first] = parseLines(await runCurationPython('parquet_fixtures.py', [dir.path]));
    const url = join(dir.path, first?.file ?? '');
    const group3: unknown[] = [];
    for await (const r of readParquetRecords(url, { rowGroup: 3, columns: ['id', 'text'] })) group3.push(asJson(r));
    expect(group3).toEqual((first?.rows ?? []).slice(150, 200).map((r) => ({ id: (r as { id: number }).id, text: (r as { text: string }).text })));
  });

  it('writes zstd parquet that pyarrow reads back unchanged, nested columns passed through with their types', async () => {
    await using dir = await tempDir();
    const [source] = parseLines(await runCurationPython('parquet_fixtures.py', [dir.path]));
    const sourceUrl = join(dir.path, source?.file ?? '');
    await using src = await openParquetFile(sourceUrl);
    const nested = (name: string): ParquetColumnSpec => {
      const tree = src.schema.children.find((c) => c.element.name === name);
      if (tree === undefined) throw new Error(name);
      return { name, type: 'parquet', elements: schemaElementsOf(tree) };
    };
    const columns: ParquetColumnSpec[] = [
      { name: 'id', type: 'int64' },
      { name: 'text', type: 'string' },
      { name: 'score', type: 'float64' },
      { name: 'flag', type: 'bool' },
      nested('meta'),
      nested('tags'),
    ];
    const out = join(dir.path, 'out', 'part-00000-of-00001.parquet');
    const result = await writeParquetPart(out, readParquetRecords(sourceUrl), { columns, rowGroupRows: 100 });
    expect(result).toMatchObject({ rows: 257, rowGroups: 3 });
    const [back] = parseLines(await runCurationPython('parquet_read.py', [out]));
    expect(back?.schema).toEqual({
      id: 'int64',
      text: 'string',
      score: 'double',
      flag: 'bool',
      meta: 'struct<url: string, lang: string, n: int32>',
      tags: 'list<element: string>',
    });
    const expected = (source?.rows ?? []).map((r) => {
      const { id, text, score, flag, meta, tags } = r as Record<string, unknown>;
      return { id, text, score, flag, meta, tags };
    });
    expect(back?.rows).toEqual(expected);
    expect(await readAll(out)).toEqual(expected);
  });

  it('writes required plain string columns (ids, texts; strings or UTF-8 bytes) that pyarrow reads back unchanged', async () => {
    await using dir = await tempDir();
    const encoder = new TextEncoder();
    // texts over a page (1 MiB) and empty ones, multi-byte characters, pages spanning several rows
    const rows = Array.from({ length: 60 }, (_, i) => ({
      id: `${i}`.padStart(32, '0'),
      text: i % 17 === 0 ? '' : i === 5 ? `big ${'ünï ✓ 🙂 '.repeat(120_000)}` : `doc ${i} ${'wörds '.repeat(i * 50)}`,
      url: i % 4 === 0 ? null : `https://example.org/${i}`,
    }));
    for (const codec of ['zstd', 'uncompressed'] as const) {
      const out = join(dir.path, `${codec}.parquet`);
      const result = await writeParquetPart(
        out,
        rows.map((r, i) => (i % 2 === 0 ? { ...r, text: encoder.encode(r.text) } : r)),
        {
          columns: [
            { name: 'id', type: 'string', nullable: false, plain: true },
            { name: 'text', type: 'string', nullable: false, plain: true },
            { name: 'url', type: 'string' },
          ],
          codec,
          rowGroupRows: 25,
        },
      );
      expect(result).toMatchObject({ rows: 60, rowGroups: 3 });
      const [back] = parseLines(await runCurationPython('parquet_read.py', [out]));
      expect(back?.schema).toEqual({ id: 'string', text: 'string', url: 'string' });
      expect(back?.rows).toEqual(rows);
      expect(await readAll(out)).toEqual(rows);
    }
  });
});
