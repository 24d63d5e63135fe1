import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeParquetPart } from './parquet-part-writer.js';
import { readParquetRecords } from './parquet-records.js';
import { readParquetUtf8Columns } from './parquet-utf8-column.js';
import { Utf8Arena, utf8StringAt, utf8ValueAt } from './utf8-column.js';
import type { Utf8Column } from './utf8-column.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'utf8-column-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const strings = (c: Utf8Column): (string | null)[] => Array.from({ length: c.length }, (_, i) => utf8StringAt(c, i));

async function readAll(url: string, column: string, options: { reuseBuffers?: boolean; rowGroup?: number } = {}): Promise<(string | null)[][]> {
  const groups: (string | null)[][] = [];
  for await (const { column: c } of readParquetUtf8Columns(url, column, options)) groups.push(strings(c));
  return groups;
}

async function collect(gen: AsyncGenerator<unknown>): Promise<void> {
  for await (const _ of gen) void _;
}

describe('readParquetUtf8Columns()', () => {
  it('yields each row group of a string column as UTF-8 bytes and offsets, nulls marked, equal to the records', async () => {
    const url = join(dir, 'docs.parquet');
    const rows = Array.from({ length: 23 }, (_, i) => ({
      text: i === 7 ? '' : `ünï ${i} ✓ ${'x'.repeat(i * 5)} 🙂`,
      note: i % 4 === 1 ? null : `n${i}`,
      n: BigInt(i),
    }));
    await writeParquetPart(url, rows, {
      columns: [
        { name: 'text', type: 'string' },
        { name: 'note', type: 'string', nullable: true },
        { name: 'n', type: 'int64' },
      ],
      rowGroupRows: 10,
    });
    const records: Record<string, unknown>[] = [];
    for await (const r of readParquetRecords(url)) records.push(r);
    for (const name of ['text', 'note']) {
      const groups = await readAll(url, name);
      expect(groups.map((g) => g.length)).toEqual([10, 10, 3]);
      expect(groups.flat()).toEqual(records.map((r) => r[name]));
    }
    const first = readParquetUtf8Columns(url, 'note');
    const { value } = await first.next();
    const column = (value as { column: Utf8Column }).column;
    expect(column.valid).not.toBeNull();
    expect(Array.from(column.valid ?? [])).toEqual(rows.slice(0, 10).map((r) => (r.note === null ? 0 : 1)));
    expect(Buffer.from(utf8ValueAt(column, 2)).toString()).toBe('n2');
    expect(column.offsets[0]).toBe(0);
    expect(column.offsets[column.length]).toBe(column.bytes.byteLength);
    await first.return(undefined);
    expect(await readAll(url, 'text', { rowGroup: 2 })).toEqual([rows.slice(20).map((r) => r.text)]);
  });

  it('with reuseBuffers, writes each row group over the last (values read before the next are right)', async () => {
    const url = join(dir, 'reuse.parquet');
    const rows = Array.from({ length: 30 }, (_, i) => ({ text: `${i}:${'abc'.repeat(30 - i)}` }));
    await writeParquetPart(url, rows, { columns: [{ name: 'text', type: 'string' }], rowGroupRows: 10 });
    const groups = await readAll(url, 'text', { reuseBuffers: true });
    expect(groups.flat()).toEqual(rows.map((r) => r.text));
    const buffers = new Set<ArrayBufferLike>();
    for await (const { column } of readParquetUtf8Columns(url, 'text', { reuseBuffers: true })) buffers.add(column.bytes.buffer);
    expect(buffers.size).toBe(1);
  });

  it('never writes over a column kept by a reader without reuseBuffers, even after a read that reused its buffers', async () => {
    const url = join(dir, 'kept.parquet');
    const rows = Array.from({ length: 30 }, (_, i) => ({ text: `${i}:${'xyz'.repeat(40 - i)}` }));
    await writeParquetPart(url, rows, { columns: [{ name: 'text', type: 'string' }], rowGroupRows: 10 });
    expect((await readAll(url, 'text', { reuseBuffers: true })).flat()).toEqual(rows.map((r) => r.text));
    const kept: Utf8Column[] = [];
    for await (const { column } of readParquetUtf8Columns(url, 'text')) kept.push(column);
    expect(kept.flatMap(strings)).toEqual(rows.map((r) => r.text));
  });

  it('with an arena, reads every row group into its shared buffers and keeps them all intact', async () => {
    const url = join(dir, 'arena.parquet');
    const rows = Array.from({ length: 45 }, (_, i) => ({ text: i % 9 === 4 ? null : `${i}:${'ñé'.repeat(i)}` }));
    await writeParquetPart(url, rows, { columns: [{ name: 'text', type: 'string', nullable: true }], rowGroupRows: 10 });
    const arena = new Utf8Arena(64 * 1024);
    const kept: Utf8Column[] = [];
    for await (const { column } of readParquetUtf8Columns(url, 'text', { arena })) kept.push(column);
    expect(kept.flatMap(strings)).toEqual(rows.map((r) => r.text));
    expect(kept[1]?.bytes.buffer).toBe(kept[0]?.bytes.buffer);
    // with reuseBuffers the arena is not used: a reused column is written over past its end
    const reused: ArrayBufferLike[] = [];
    for await (const { column } of readParquetUtf8Columns(url, 'text', { arena, reuseBuffers: true })) reused.push(column.bytes.buffer);
    expect(reused).not.toContain(kept[0]?.bytes.buffer);
    expect(kept.flatMap(strings)).toEqual(rows.map((r) => r.text));
  });

  it('refuses a missing column or row group, and a column that is not a string', async () => {
    const url = join(dir, 'n.parquet');
    await writeParquetPart(url, [{ text: 'a', n: 1n }], {
      columns: [
        { name: 'text', type: 'string' },
        { name: 'n', type: 'int64' },
      ],
    });
    await expect(collect(readParquetUtf8Columns(url, 'nope'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND', details: { path: url, column: 'nope' } });
    await expect(collect(readParquetUtf8Columns(url, 'text', { rowGroup: 4 }))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND', details: { rowGroup: 4 } });
    await expect(collect(readParquetUtf8Columns(url, 'n'))).rejects.toMatchObject({ code: 'PIPELINE_SCHEMA_MISMATCH', details: { path: url, column: 'n' } });
  });

  it('refuses invalid UTF-8, also a character split across two values whose bytes together are valid', async () => {
    const bad = join(dir, 'bad.parquet');
    await writeParquetPart(bad, [{ text: 'ok' }, { text: new Uint8Array([0x61, 0xff, 0x62]) }], { columns: [{ name: 'text', type: 'string' }] });
    await expect(collect(readParquetUtf8Columns(bad, 'text'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: bad, rowGroup: 0, column: 'text' } });
    // "é" is C3 A9: each half alone is invalid, though the column's bytes, concatenated, are valid UTF-8
    const split = join(dir, 'split.parquet');
    await writeParquetPart(split, [{ text: new Uint8Array([0x61, 0xc3]) }, { text: new Uint8Array([0xa9, 0x62]) }], { columns: [{ name: 'text', type: 'string' }] });
    await expect(collect(readParquetUtf8Columns(split, 'text'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: split, column: 'text' } });
  });

  it('reports a corrupt page as PIPELINE_INPUT_INVALID naming the file, row group and column', async () => {
    const url = join(dir, 'good.parquet');
    await writeParquetPart(url, Array.from({ length: 10 }, (_, i) => ({ text: `t${i}` })), { columns: [{ name: 'text', type: 'string' }], rowGroupRows: 4 });
    const bytes = Buffer.from(await readFile(url));
    bytes.fill(0xff, 4, 40);
    const corrupt = join(dir, 'corrupt.parquet');
    await writeFile(corrupt, bytes);
    await expect(collect(readParquetUtf8Columns(corrupt, 'text'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: corrupt, rowGroup: 0, column: 'text' } });
  });
});
