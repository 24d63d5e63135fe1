import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PipelineError } from '../errors.js';
import { writeParquetPart } from '../formats/parquet-part-writer.js';
import type { ParquetColumnSpec } from '../formats/parquet-schema.js';
import { writePlainRun } from './plain-run-writer.js';
import { forEachShuffleRecord, readShufflePartition } from './shuffle-reader.js';
import type { VisitShuffleOptions } from './shuffle-reader.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shuffle-reader-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const COLUMNS: ParquetColumnSpec[] = [
  { name: 'id', type: 'string', nullable: false, plain: true },
  { name: 'text', type: 'string', nullable: false, plain: true },
  { name: 'n', type: 'int64' },
];
const decoder = new TextDecoder();

/** A sorted run of `ids` (texts: `<id>:<run>:<k>`, some multi-byte), written in row groups of 2 rows. */
async function writeRun(name: string, ids: string[], codec: 'uncompressed' | 'zstd' = 'uncompressed'): Promise<string> {
  const url = join(dir, `${name}.parquet`);
  const rows = ids.map((id, k) => ({ id, text: `${id}:${name}:${k} é ☃`, n: BigInt(k) }));
  await writeParquetPart(url, rows, { columns: COLUMNS, codec, rowGroupRows: 2 });
  return url;
}

/** Collects what forEachShuffleRecord visits, texts decoded (they come as bytes). */
async function visited(options: VisitShuffleOptions): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  await forEachShuffleRecord(options, (r) => {
    const text = r['text'];
    expect(text).toBeInstanceOf(Uint8Array);
    out.push({ ...r, text: decoder.decode(text as Uint8Array) });
    // a visitor that sometimes waits: the merge awaits it before the next record
    return out.length % 3 === 0 ? new Promise((resolve) => setImmediate(resolve)) : undefined;
  });
  return out;
}

async function read(options: VisitShuffleOptions): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of readShufflePartition(options)) out.push(r);
  return out;
}

describe('forEachShuffleRecord()', () => {
  it('merges runs of several row groups and buffered records as readShufflePartition does, texts as UTF-8 bytes', async () => {
    const files = [await writeRun('r0', ['a', 'c', 'c', 'f', 'x']), await writeRun('r1', ['b', 'c', 'd']), await writeRun('r2', []), await writeRun('r3', ['c', 'z'], 'zstd')];
    const buffered = [
      { id: 'c', text: new TextEncoder().encode('c:mem'), n: 9n },
      { id: 'y', text: new TextEncoder().encode('y:mem'), n: 9n },
    ];
    const got = await visited({ files, sortKey: 'id', buffered, utf8Columns: ['text'] });
    const expected = (await read({ files, sortKey: 'id', buffered })).map((r) => ({ ...r, text: r['text'] instanceof Uint8Array ? decoder.decode(r['text']) : r['text'] }));
    expect(got).toEqual(expected);
    // ties keep source order: runs in file order, then what is in memory
    expect(got.filter((r) => r['id'] === 'c').map((r) => r['text'])).toEqual(['c:r0:1 é ☃', 'c:r0:2 é ☃', 'c:r1:1 é ☃', 'c:r3:0 é ☃', 'c:mem']);
    expect(got.map((r) => r['id'])).toEqual(['a', 'b', 'c', 'c', 'c', 'c', 'c', 'd', 'f', 'x', 'y', 'z']);
  });

  it('concatenates runs in file order, then buffered records, without a sort key', async () => {
    const files = [await writeRun('r0', ['b', 'a', 'c']), await writeRun('r1', ['a'], 'zstd')];
    const got = await visited({ files, buffered: [{ id: 'm', text: new TextEncoder().encode('m'), n: 0n }], utf8Columns: ['text'] });
    expect(got.map((r) => `${String(r['id'])}/${String(r['text'])}`)).toEqual(['b/b:r0:0 é ☃', 'a/a:r0:1 é ☃', 'c/c:r0:2 é ☃', 'a/a:r1:0 é ☃', 'm/m']);
    expect(got.map((r) => r['n'])).toEqual([0n, 1n, 2n, 0n, 0n]);
  });

  it('calls an object visitor\'s visit method, merged or concatenated', async () => {
    const files = [await writeRun('r0', ['a', 'c']), await writeRun('r1', ['b'])];
    const ids = async (sortKey: string | undefined): Promise<unknown[]> => {
      const visitor = {
        ids: [] as unknown[],
        visit(r: Record<string, unknown>): undefined {
          this.ids.push(r['id']);
          return undefined;
        },
      };
      await forEachShuffleRecord({ files, utf8Columns: ['text'], ...(sortKey === undefined ? {} : { sortKey }) }, visitor);
      return visitor.ids;
    };
    expect(await ids('id')).toEqual(['a', 'b', 'c']);
    expect(await ids(undefined)).toEqual(['a', 'c', 'b']);
  });

  it('merges runs whose columns are all plain a page at a time, as readShufflePartition does', async () => {
    const columns: ParquetColumnSpec[] = [
      { name: 'id', type: 'string', nullable: false, plain: true },
      { name: 'text', type: 'string', nullable: false, plain: true },
      { name: 'fields', type: 'string', nullable: false },
    ];
    // texts past a page (1 MiB), so a run's text chunk is several pages and its batches are cut mid-run
    const files: string[] = [];
    for (let r = 0; r < 3; r++) {
      const ids = Array.from({ length: 400 }, (_, i) => `k${String(i * 3 + r).padStart(5, '0')}`).filter((_, i) => i % (r + 1) === 0);
      const url = join(dir, `plain-${r}.parquet`);
      await writePlainRun(
        url,
        columns,
        ids.map((id, k) => ({ id, text: k % 50 === 7 ? `${id} ${'é'.repeat(300_000)}` : `${id}:${r}:${k} ☃`, fields: JSON.stringify({ r, k }) })),
      );
      files.push(url);
    }
    const expected: Record<string, unknown>[] = [];
    for await (const r of readShufflePartition({ files, sortKey: 'id' })) expected.push(r);
    expect(expected.length).toBeGreaterThan(600);
    expect(await visited({ files, sortKey: 'id', utf8Columns: ['text'] })).toEqual(expected);
    const concatenated: Record<string, unknown>[] = [];
    for await (const r of readShufflePartition({ files })) concatenated.push(r);
    expect(await visited({ files, utf8Columns: ['text'] })).toEqual(concatenated);
  });

  it('refuses a truncated run file and a text that is not valid UTF-8 with PIPELINE_INPUT_INVALID', async () => {
    const url = await writeRun('r0', ['a', 'b', 'c', 'd']);
    const bytes = await readFile(url);
    // a run whose texts hold invalid UTF-8 (written as raw bytes)
    const bad = join(dir, 'bad.parquet');
    await writeParquetPart(bad, [{ id: 'a', text: new Uint8Array([0x61, 0xff]), n: 0n }], { columns: COLUMNS, codec: 'uncompressed' });
    const codeOf = async (files: string[]): Promise<string | null> => {
      try {
        await forEachShuffleRecord({ files, sortKey: 'id', utf8Columns: ['text'] }, () => undefined);
        return null;
      } catch (e) {
        return PipelineError.is(e) ? e.code : String(e);
      }
    };
    expect(await codeOf([bad])).toBe('PIPELINE_INPUT_INVALID');
    // the first text's bytes overwritten with a page header's worth of garbage: the chunk no longer parses
    const textAt = bytes.indexOf(Buffer.from('a:r0:0'));
    expect(textAt).toBeGreaterThan(0);
    const corrupt = Buffer.from(bytes);
    corrupt.fill(0xff, textAt - 40, textAt + 8);
    const corruptUrl = join(dir, 'corrupt.parquet');
    await writeFile(corruptUrl, corrupt);
    expect(await codeOf([corruptUrl])).toBe('PIPELINE_INPUT_INVALID');
  });
});
