import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openParquetFile } from './parquet-file.js';
import { createParquetPartWriter, writeParquetPart } from './parquet-part-writer.js';
import { readParquetRecords } from './parquet-records.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parquet-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(url: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of readParquetRecords(url)) out.push(r);
  return out;
}

describe('writeParquetPart()', () => {
  it('keeps every byte when writers run interleaved and reuse each other\'s output buffers', async () => {
    // incompressible texts over many 1 MiB output buffers, written by two writers at once: a buffer reused
    // before its bytes reached the file would show up as a corrupt page or a wrong text
    let seed = 7;
    const text = (n: number): string => {
      const bytes = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        bytes[i] = 0x21 + ((seed >>> 16) % 94);
      }
      return bytes.toString('latin1');
    };
    const rows = (k: number): { id: string; text: string; n: number }[] => Array.from({ length: 40 }, (_, i) => ({ id: `${k}-${i}`, text: text(80_000 + i), n: i }));
    const columns = [
      { name: 'id', type: 'string', nullable: false, plain: true },
      { name: 'text', type: 'string', nullable: false, plain: true },
      { name: 'n', type: 'int64' },
    ] as const;
    const a = rows(0);
    const b = rows(1);
    await using wa = await createParquetPartWriter(join(dir, 'a.parquet'), { columns: [...columns], rowGroupBytes: 2_000_000 });
    await using wb = await createParquetPartWriter(join(dir, 'b.parquet'), { columns: [...columns], rowGroupBytes: 3_000_000 });
    for (let i = 0; i < a.length; i++) {
      await wa.write(a[i] as Record<string, unknown>);
      await wb.write(b[i] as Record<string, unknown>);
    }
    await Promise.all([wa.close(), wb.close()]);
    const back = async (name: string): Promise<unknown[]> => (await readAll(join(dir, name))).map((r) => ({ ...r, n: Number(r['n']) }));
    expect(await back('a.parquet')).toEqual(a);
    expect(await back('b.parquet')).toEqual(b);
  }, 60_000);

  it('round-trips every value type, nulls included', async () => {
    const url = join(dir, 'p.parquet');
    const rows = [
      { s: 'a', i: 1n, j: 2, f: 0.5, b: true, o: { k: [1, 2] } },
      { s: null, i: null, j: null, f: null, b: null, o: null },
    ];
    await writeParquetPart(url, rows, {
      columns: [
        { name: 's', type: 'string' },
        { name: 'i', type: 'int64' },
        { name: 'j', type: 'int32' },
        { name: 'f', type: 'float64' },
        { name: 'b', type: 'bool' },
        { name: 'o', type: 'json' },
      ],
    });
    expect(await readAll(url)).toEqual(rows);
  });

  it('writes uncompressed pages when asked (scratch files)', async () => {
    const url = join(dir, 'p.parquet');
    const rows = [{ text: 'x'.repeat(10_000) }];
    await writeParquetPart(url, rows, { columns: [{ name: 'text', type: 'string' }], codec: 'uncompressed' });
    await using f = await openParquetFile(url);
    expect(f.metadata.row_groups[0]?.columns[0]?.meta_data?.codec).toBe('UNCOMPRESSED');
    expect(await readAll(url)).toEqual(rows);
  });

  it('takes UTF-8 bytes for string columns, writes plain columns without a dictionary, and files of many buffer chunks', async () => {
    const url = join(dir, 'p.parquet');
    const encoder = new TextEncoder();
    // ~6 MB uncompressed in 2 row groups: pages and row groups span several of the writer's 1 MiB chunks
    const rows = Array.from({ length: 600 }, (_, i) => ({ id: `id-${i}`, text: `${i} ünï ${'abcdefghij'.repeat(1000)}`, tag: `t${i % 3}` }));
    await writeParquetPart(
      url,
      rows.map((r) => ({ ...r, text: encoder.encode(r.text) })),
      {
        columns: [
          { name: 'id', type: 'string', plain: true },
          { name: 'text', type: 'string', plain: true },
          { name: 'tag', type: 'string' },
        ],
        codec: 'uncompressed',
        rowGroupBytes: 3_500_000,
      },
    );
    await using f = await openParquetFile(url);
    expect(f.rowGroups).toHaveLength(2);
    const encodings = (f.metadata.row_groups[0]?.columns ?? []).map((c) => c.meta_data?.encodings);
    expect(encodings[0]).not.toContain('RLE_DICTIONARY');
    expect(encodings[1]).not.toContain('RLE_DICTIONARY');
    expect(encodings[2]).toContain('RLE_DICTIONARY');
    expect(await readAll(url)).toEqual(rows);
  });

  it('cuts row groups by buffered bytes', async () => {
    const url = join(dir, 'p.parquet');
    const rows = Array.from({ length: 10 }, (_, i) => ({ text: String(i).repeat(1000) }));
    const result = await writeParquetPart(url, rows, { columns: [{ name: 'text', type: 'string' }], rowGroupBytes: 3000 });
    expect(result).toMatchObject({ rows: 10, rowGroups: 4 });
    await using f = await openParquetFile(url);
    expect(f.rowGroups.map((g) => g.numRows)).toEqual([3, 3, 3, 1]);
    expect(await readAll(url)).toEqual(rows);
  });

  it('leaves nothing at the URL when a value does not fit its column, naming the column', async () => {
    const url = join(dir, 'p.parquet');
    await expect(writeParquetPart(url, [{ n: 1n }, { n: 'x' }], { columns: [{ name: 'n', type: 'int64' }] })).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_INVALID',
      details: { path: url, column: 'n' },
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('leaves nothing when the records fail midway or the writer is aborted', async () => {
    const url = join(dir, 'p.parquet');
    async function* failing(): AsyncGenerator<Record<string, unknown>> {
      yield { t: 'a' };
      throw new Error('source failed');
    }
    await expect(writeParquetPart(url, failing(), { columns: [{ name: 't', type: 'string' }], rowGroupRows: 1 })).rejects.toThrow('source failed');
    const w = await createParquetPartWriter(url, { columns: [{ name: 't', type: 'string' }], rowGroupRows: 1 });
    await w.write({ t: 'a' });
    await w.write({ t: 'b' });
    await w.abort();
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses null values in a non-nullable column', async () => {
    await expect(writeParquetPart(join(dir, 'p.parquet'), [{ id: null }], { columns: [{ name: 'id', type: 'string', nullable: false }] })).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_INVALID',
    });
  });
});
