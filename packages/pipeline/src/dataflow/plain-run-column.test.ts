import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openParquetFile } from '../formats/parquet-file.js';
import { writeParquetPart } from '../formats/parquet-part-writer.js';
import type { ParquetColumnSpec } from '../formats/parquet-schema.js';
import { isPlainRunColumn, readPlainRunColumn } from './plain-run-column.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plain-run-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const COLUMNS: ParquetColumnSpec[] = [
  { name: 'text', type: 'string', nullable: false, plain: true },
  { name: 'other', type: 'string' },
];

describe('readPlainRunColumn()', () => {
  it('hands out the values of an uncompressed PLAIN chunk as views of one read, row group by row group', async () => {
    const url = join(dir, 'run.parquet');
    // values past a page (1 MiB) so a chunk holds several pages
    const texts = ['', 'a', 'é☃', 'x'.repeat(700_000), 'y'.repeat(700_000), 'last'];
    await writeParquetPart(
      url,
      texts.map((text) => ({ text, other: text.slice(0, 3) })),
      { columns: COLUMNS, codec: 'uncompressed', rowGroupRows: 4 },
    );
    await using file = await openParquetFile(url);
    expect(isPlainRunColumn(file, 'text')).toBe(true);
    // a column hyparquet-writer writes (optional, maybe dictionary encoded) is left to the byte reader
    expect(isPlainRunColumn(file, 'other')).toBe(false);
    expect(isPlainRunColumn(file, 'missing')).toBe(false);
    const first = await readPlainRunColumn(file, 0, 'text');
    const second = await readPlainRunColumn(file, 1, 'text');
    const decoder = new TextDecoder();
    expect([...first, ...second].map((v) => decoder.decode(v))).toEqual(texts);
    expect(new Set(first.map((v) => v.buffer)).size).toBe(1);
  });

  it('is not used for a compressed chunk', async () => {
    const url = join(dir, 'zstd.parquet');
    await writeParquetPart(url, [{ text: 'a', other: 'b' }], { columns: COLUMNS, codec: 'zstd' });
    await using file = await openParquetFile(url);
    expect(isPlainRunColumn(file, 'text')).toBe(false);
  });
});
