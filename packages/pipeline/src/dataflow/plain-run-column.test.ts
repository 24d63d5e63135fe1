import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PipelineError } from '../errors.js';
import { openParquetFile } from '../formats/parquet-file.js';
import { writeParquetPart } from '../formats/parquet-part-writer.js';
import type { ParquetColumnSpec } from '../formats/parquet-schema.js';
import { PlainRunPages, isPlainRunColumn, readPlainRunColumn } from './plain-run-column.js';
import { writePlainRun } from './plain-run-writer.js';

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

describe('PlainRunPages', () => {
  const RUN: ParquetColumnSpec[] = [
    { name: 'id', type: 'string', nullable: false, plain: true },
    { name: 'text', type: 'string', nullable: false, plain: true },
  ];
  // texts past a page (1 MiB) and many short ones, so the text chunk holds several pages
  const texts = ['', 'a', 'é☃', 'x'.repeat(700_000), 'y'.repeat(900_000), ...Array.from({ length: 3000 }, (_, i) => `short ${i} ü`), 'z'.repeat(1_200_000), 'last'];
  const rows = texts.map((text, i) => ({ id: `id-${String(i).padStart(5, '0')}`, text }));

  async function drain(pages: PlainRunPages): Promise<Uint8Array[][]> {
    const batches: Uint8Array[][] = [];
    for (;;) {
      await pages.fill();
      if (pages.available === 0) return batches;
      batches.push(pages.take(pages.available));
    }
  }

  it('reads a run column a page at a time, each page into a buffer of its own', async () => {
    const url = join(dir, 'run.parquet');
    await writePlainRun(url, RUN, rows);
    await using file = await openParquetFile(url);
    const pages = new PlainRunPages(file, 0, 'text');
    expect(pages.remaining).toBe(texts.length);
    const batches = await drain(pages);
    const decoder = new TextDecoder();
    expect(batches.flat().map((v) => decoder.decode(v))).toEqual(texts);
    expect(pages.remaining).toBe(0);
    // a batch is one page's values, all views of that page's read; pages are separate reads
    expect(batches.length).toBeGreaterThan(2);
    for (const batch of batches) expect(new Set(batch.map((v) => v.buffer)).size).toBe(1);
    expect(new Set(batches.map((b) => (b[0] as Uint8Array).buffer)).size).toBe(batches.length);
    // taking fewer values than a page holds leaves the rest for the next take
    const ids = new PlainRunPages(file, 0, 'id');
    await ids.fill();
    const firstTwo = ids.take(2);
    expect(firstTwo.map((v) => decoder.decode(v))).toEqual(['id-00000', 'id-00001']);
    expect(ids.remaining).toBe(texts.length - 2);
    expect(decoder.decode(ids.take(1)[0])).toBe('id-00002');
  });

  it('refuses a truncated chunk and a value that is not valid UTF-8 with PIPELINE_INPUT_INVALID', async () => {
    const url = join(dir, 'run.parquet');
    await writePlainRun(url, RUN, rows);
    const codeOf = async (u: string): Promise<string | null> => {
      try {
        await using file = await openParquetFile(u);
        await drain(new PlainRunPages(file, 0, 'text'));
        return null;
      } catch (e) {
        return PipelineError.is(e) ? e.code : String(e);
      }
    };
    expect(await codeOf(url)).toBeNull();
    // a page header overwritten with garbage: the chunk no longer parses
    const bytes = await readFile(url);
    const at = bytes.indexOf(Buffer.from('short 10 '));
    const corrupt = Buffer.from(bytes);
    corrupt.fill(0xff, at - 64, at + 8);
    const corruptUrl = join(dir, 'corrupt.parquet');
    await writeFile(corruptUrl, corrupt);
    expect(await codeOf(corruptUrl)).toBe('PIPELINE_INPUT_INVALID');
    // a text that is not valid UTF-8
    const bad = join(dir, 'bad.parquet');
    await writePlainRun(bad, RUN, [{ id: 'a', text: new Uint8Array([0x61, 0xff]) }]);
    expect(await codeOf(bad)).toBe('PIPELINE_INPUT_INVALID');
  });
});
