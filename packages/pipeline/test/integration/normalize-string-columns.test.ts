import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openParquetFile } from '../../src/formats/parquet-file.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { normalizeToParquet } from '../../src/steps/normalize/normalize.js';
import { runCurationPython } from '../helpers/curation-python.js';

interface TempDir extends AsyncDisposable {
  path: string;
}

async function tempDir(): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), 'pipeline-string-columns-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

interface PyarrowFile {
  schema: Record<string, string>;
  rows: Record<string, unknown>[];
}

/** What pyarrow reads from every parquet file of `dir` (sorted by name). */
async function pyarrowRead(dir: string): Promise<PyarrowFile[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.parquet')).sort();
  if (names.length === 0) return [];
  const out = await runCurationPython('parquet_read.py', names.map((n) => join(dir, n)));
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const { schema, rows } = JSON.parse(l) as PyarrowFile;
      return { schema, rows };
    });
}

const byKey = (a: Record<string, unknown>, b: Record<string, unknown>): number => {
  const ka = JSON.stringify([a['source_id'], a['text']]);
  const kb = JSON.stringify([b['source_id'], b['text']]);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

describe('flat string columns beside the text', () => {
  it('come out of normalize as pyarrow wrote them: nulls, empty strings and non-ASCII values, beside numbers and nested columns', async () => {
    await using dir = await tempDir();
    await mkdir(join(dir.path, 'raw'));
    const input = join(dir.path, 'raw', 'train.parquet');
    const { rows: written } = JSON.parse(await runCurationPython('string_columns_fixture.py', [input])) as { rows: Record<string, unknown>[] };
    // Marin's record of each input row with text: id_field as source_id (absent when null), the other columns as they are
    const expected = written
      .filter((r) => (r['text'] as string).trim() !== '')
      .map(({ id, ...rest }) => ({ ...rest, source_id: id }))
      .sort(byKey);
    const run = async (name: string, options: { map_task_bytes?: number; spill_bytes?: number }) => {
      const output = join(dir.path, name);
      const result = await normalizeToParquet({ input_path: join(dir.path, 'raw'), output_path: output, target_partition_bytes: 8000, ...options });
      return { counters: result.counters, main: await pyarrowRead(join(output, 'outputs/main')), dups: await pyarrowRead(join(output, 'outputs/dups')) };
    };
    const single = await run('single', {});
    expect(single.main.length).toBeGreaterThan(1);
    expect(single.counters['normalize/duplicate_records_out']).toBe(5);
    for (const f of [...single.main, ...single.dups]) {
      expect(f.schema).toEqual({
        id: 'string',
        text: 'string',
        source_id: 'string',
        url: 'string',
        title: 'string',
        lang: 'string',
        score: 'double',
        meta: 'struct<host: string, n: int32>',
        tags: 'list<element: string>',
      });
    }
    const all = [...single.main, ...single.dups].flatMap((f) => f.rows);
    expect(all.every((r) => typeof r['id'] === 'string' && /^[0-9a-f]{32}$/.test(r['id']))).toBe(true);
    expect(all.map(({ id: _id, ...rest }) => rest).sort(byKey)).toEqual(expected);
    // the shuffle (map tasks per row group, spill files) carries every value through as well
    expect(await run('map-reduce', { map_task_bytes: 1 })).toEqual(single);
    expect(await run('single-spilling', { spill_bytes: 4000 })).toEqual(single);
  }, 120_000);

  it('are written PLAIN with their nulls over many pages and row groups, and read back by pyarrow', async () => {
    await using dir = await tempDir();
    const url = join(dir.path, 'p.parquet');
    // ~4 MB of long optional values: pages of 1 MiB with definition levels, row groups of ~2.5 MB
    const rows = Array.from({ length: 4000 }, (_, i) => ({
      long: i % 5 === 1 ? null : i % 7 === 3 ? '' : `${i} ünï ✓ ${'abcdefghij'.repeat(100)}`,
      sparse: i % 3 === 0 ? `s${i}` : null,
      empty: null,
      repeated: i % 2 === 0 ? 'dclm' : 'fineweb',
      n: i % 11 === 0 ? null : BigInt(i),
    }));
    const encoder = new TextEncoder();
    await writeParquetPart(
      url,
      rows.map((r, i) => ({ ...r, long: i % 2 === 0 && r.long !== null ? encoder.encode(r.long) : r.long })),
      {
        columns: [
          { name: 'long', type: 'string' },
          { name: 'sparse', type: 'string' },
          { name: 'empty', type: 'string' },
          { name: 'repeated', type: 'string' },
          { name: 'n', type: 'int64' },
        ],
        rowGroupBytes: 2_500_000,
      },
    );
    await using f = await openParquetFile(url);
    expect(f.rowGroups.length).toBeGreaterThan(1);
    const chunks = f.metadata.row_groups[0]?.columns ?? [];
    // unique strings PLAIN; a column of two values keeps hyparquet-writer's dictionary
    expect(chunks.map((c) => c.meta_data?.encodings)).toEqual([['PLAIN'], ['PLAIN'], ['PLAIN'], ['PLAIN', 'RLE_DICTIONARY'], ['PLAIN']]);
    const [back] = await pyarrowRead(dir.path);
    expect(back?.schema).toEqual({ long: 'string', sparse: 'string', empty: 'string', repeated: 'string', n: 'int64' });
    expect(back?.rows).toEqual(rows.map((r) => ({ ...r, n: r.n === null ? null : Number(r.n) })));
  }, 60_000);
});
