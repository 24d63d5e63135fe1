import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openParquetFile } from './parquet-file.js';
import { writeParquetPart } from './parquet-part-writer.js';
import { readParquetRecords } from './parquet-records.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parquet-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function goodFile(): Promise<string> {
  const url = join(dir, 'good.parquet');
  await writeParquetPart(url, Array.from({ length: 10 }, (_, i) => ({ text: `t${i}` })), { columns: [{ name: 'text', type: 'string' }], rowGroupRows: 4 });
  return url;
}

describe('openParquetFile()', () => {
  it('reads the footer: row groups, rows and columns', async () => {
    await using f = await openParquetFile(await goodFile());
    expect(f.numRows).toBe(10);
    expect(f.rowGroups.map((g) => [g.rowStart, g.numRows])).toEqual([[0, 4], [4, 4], [8, 2]]);
    expect(f.columns).toEqual(['text']);
  });

  it('refuses a file with a bad magic number, naming it', async () => {
    const bytes = await readFile(await goodFile());
    const url = join(dir, 'bad-magic.parquet');
    await writeFile(url, Buffer.concat([bytes.subarray(0, bytes.length - 4), Buffer.from('XXXX')]));
    await expect(openParquetFile(url)).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: url } });
  });

  it('refuses a truncated file (footer cut off) and one too short to be parquet', async () => {
    const bytes = await readFile(await goodFile());
    const truncated = join(dir, 'truncated.parquet');
    await writeFile(truncated, bytes.subarray(0, bytes.length - 20));
    await expect(openParquetFile(truncated)).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: truncated } });
    const tiny = join(dir, 'tiny.parquet');
    await writeFile(tiny, 'PAR1');
    await expect(openParquetFile(tiny)).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: tiny } });
  });

  it('reports a missing file as PIPELINE_INPUT_NOT_FOUND', async () => {
    await expect(openParquetFile(join(dir, 'missing.parquet'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND' });
  });
});

describe('readParquetRecords()', () => {
  it('reports a corrupt data page as PIPELINE_INPUT_INVALID with the row group', async () => {
    const bytes = Buffer.from(await readFile(await goodFile()));
    // overwrite the start of the first column chunk (after the 4-byte magic) with garbage
    bytes.fill(0xff, 4, 40);
    const url = join(dir, 'corrupt.parquet');
    await writeFile(url, bytes);
    await expect(async () => {
      for await (const _ of readParquetRecords(url)) void _;
    }).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: url, rowGroup: 0 } });
  });

  it('refuses unknown columns and row groups as PIPELINE_INPUT_NOT_FOUND', async () => {
    const url = await goodFile();
    await expect(async () => {
      for await (const _ of readParquetRecords(url, { columns: ['nope'] })) void _;
    }).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND', details: { column: 'nope' } });
    await expect(async () => {
      for await (const _ of readParquetRecords(url, { rowGroup: 9 })) void _;
    }).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND', details: { rowGroup: 9 } });
  });

  it('returns utf8Columns as their checked UTF-8 bytes, the other columns as strings, and refuses invalid UTF-8 in them', async () => {
    const url = join(dir, 'u.parquet');
    const rows = Array.from({ length: 9 }, (_, i) => ({ id: `d${i}`, text: `ünï ${i} ✓`, n: BigInt(i) }));
    const columns = [
      { name: 'id', type: 'string' },
      { name: 'text', type: 'string' },
      { name: 'n', type: 'int64' },
    ] as const;
    await writeParquetPart(url, rows, { columns: [...columns], rowGroupRows: 4 });
    const got: Record<string, unknown>[] = [];
    for await (const r of readParquetRecords(url, { utf8Columns: ['text'] })) got.push(r);
    expect(got.map((r) => r['text'])).toEqual(rows.map((r) => new Uint8Array(Buffer.from(r.text))));
    expect(got.map((r) => [r['id'], r['n']])).toEqual(rows.map((r) => [r.id, r.n]));
    const only: unknown[] = [];
    for await (const r of readParquetRecords(url, { columns: ['text'], utf8Columns: ['text'] })) only.push(r);
    expect(only[0]).toEqual({ text: new Uint8Array(Buffer.from(rows[0]?.text ?? '')) });

    const bad = join(dir, 'bad-utf8.parquet');
    await writeParquetPart(bad, [{ text: new Uint8Array([0x61, 0xff, 0x62]) }], { columns: [{ name: 'text', type: 'string' }] });
    const read = async (): Promise<void> => {
      for await (const _ of readParquetRecords(bad, { utf8Columns: ['text'] })) void _;
    };
    await expect(read()).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: bad, rowGroup: 0 } });
  });
});
