import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDatasetParts, listRecordFiles } from './dataset-parts.js';
import { writeParquetPart } from './parquet-part-writer.js';
import { readPartRecords } from './record-reader.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dataset-parts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('listDatasetParts()', () => {
  it('makes one part per parquet row group and one per JSON-lines file, in file order', async () => {
    await writeParquetPart(join(dir, 'b.parquet'), Array.from({ length: 5 }, (_, i) => ({ text: `p${i}` })), { columns: [{ name: 'text', type: 'string' }], rowGroupRows: 2 });
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'a.jsonl'), '{"text":"j0"}\n{"text":"j1"}\n');
    await writeFile(join(dir, '.skip.jsonl'), '{"text":"no"}\n');
    await mkdir(join(dir, '_tmp'));
    await writeFile(join(dir, '_tmp', 'c.jsonl'), '{"text":"no"}\n');
    const parts = await listDatasetParts(dir);
    expect(parts.map((p) => [p.url.slice(dir.length + 1), p.rowGroup, p.rows])).toEqual([
      ['b.parquet', 0, 2],
      ['b.parquet', 1, 2],
      ['b.parquet', 2, 1],
      ['sub/a.jsonl', null, null],
    ]);
    const texts: unknown[] = [];
    for (const p of parts) for await (const r of readPartRecords(p)) texts.push(r['text']);
    expect(texts).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'j0', 'j1']);
  });

  it('reports a path without record files as PIPELINE_INPUT_NOT_FOUND and a named file of another format as unsupported', async () => {
    await writeFile(join(dir, 'x.csv'), 'a,b\n');
    await expect(listRecordFiles(dir)).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND', details: { path: dir } });
    await expect(listRecordFiles(join(dir, 'x.csv'))).rejects.toMatchObject({ code: 'PIPELINE_UNSUPPORTED_FORMAT' });
  });
});
