import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDatasetParts } from './dataset-parts.js';
import { writeParquetPart } from './parquet-part-writer.js';
import { readPartBatches, readPartRecords } from './record-reader.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-reader-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function batchesOf(path: string): Promise<{ sizes: number[]; batched: Record<string, unknown>[]; single: Record<string, unknown>[] }> {
  const sizes: number[] = [];
  const batched: Record<string, unknown>[] = [];
  const single: Record<string, unknown>[] = [];
  for (const part of await listDatasetParts(path)) {
    for await (const batch of readPartBatches(part)) {
      sizes.push(batch.length);
      batched.push(...batch);
    }
    for await (const r of readPartRecords(part)) single.push(r);
  }
  return { sizes, batched, single };
}

describe('readPartBatches()', () => {
  it('yields a parquet part per row group, with the records readPartRecords gives', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => ({ id: `d${i}`, text: `text ${i}` }));
    await writeParquetPart(join(dir, 'a.parquet'), rows, { columns: [{ name: 'id', type: 'string' }, { name: 'text', type: 'string' }], rowGroupRows: 10 });
    const { sizes, batched, single } = await batchesOf(join(dir, 'a.parquet'));
    expect(sizes).toEqual([10, 10, 5]);
    expect(batched).toEqual(rows);
    expect(single).toEqual(rows);
  });

  it('yields a JSON-lines part in batches of 1,024 lines, in order', async () => {
    const rows = Array.from({ length: 2_500 }, (_, i) => ({ id: i, text: `line ${i}` }));
    await writeFile(join(dir, 'a.jsonl'), rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const { sizes, batched, single } = await batchesOf(join(dir, 'a.jsonl'));
    expect(sizes).toEqual([1_024, 1_024, 452]);
    expect(batched).toEqual(rows);
    expect(single).toEqual(rows);
  });
});
