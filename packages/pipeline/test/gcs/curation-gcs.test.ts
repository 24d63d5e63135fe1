import { exists, ls, writeBytes, writeText } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';
import type { FakeGcsHandle } from '@marin/rigging/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compress } from 'zstd-napi';
import { listPartFiles } from '../../src/attributes/attribute-dataset.js';
import { openParquetFile } from '../../src/formats/parquet-file.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../../src/formats/parquet-records.js';
import { consolidate } from '../../src/steps/consolidate/consolidate.js';
import { normalizeToParquet } from '../../src/steps/normalize/normalize.js';

let gcs: FakeGcsHandle | undefined;

beforeAll(async () => {
  gcs = await startFakeGcs({ setEnv: true });
});

afterAll(async () => {
  await gcs?.close();
});

async function readAll(url: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for await (const r of readParquetRecords(url)) rows.push(r);
  return rows;
}

describe('curation stages on a gs:// prefix (fake-gcs-server)', () => {
  it('normalizes parquet and zstd JSON lines from gs:// into gs:// and consolidates with a gs:// attribute dataset', async () => {
    const prefix = `gs://${await gcs!.createUniqueBucket('curation')}/marin`;
    const docs = Array.from({ length: 120 }, (_, i) => ({ id: `d${i}`, text: i % 10 === 9 ? 'same text' : `document ${i}` }));
    await writeParquetPart(`${prefix}/raw/a.parquet`, docs.slice(0, 60), { columns: [{ name: 'id', type: 'string' }, { name: 'text', type: 'string' }], rowGroupRows: 16 });
    await writeBytes(`${prefix}/raw/b.jsonl.zst`, compress(Buffer.from(docs.slice(60).map((d) => `${JSON.stringify(d)}\n`).join(''))));
    await using file = await openParquetFile(`${prefix}/raw/a.parquet`);
    expect(file.rowGroups.map((g) => g.numRows)).toEqual([16, 16, 16, 12]);

    const result = await normalizeToParquet({ input_path: `${prefix}/raw`, output_path: `${prefix}/normalized`, target_partition_bytes: 500, map_task_bytes: 1 });
    expect(result.counters).toMatchObject({ 'normalize/records_in': 120, 'normalize/unique_records_out': 109, 'normalize/duplicate_records_out': 11 });
    const parts = await listPartFiles(`${prefix}/normalized/outputs/main`);
    expect(parts.length).toBeGreaterThan(1);
    expect(await exists(`${prefix}/normalized/.work/map/map-00000.done.json`)).toBe(false);

    for (const part of parts) {
      const rows = await readAll(part);
      await writeParquetPart(
        part.replace('/normalized/outputs/main/', '/attributes/length/'),
        rows.map((r) => ({ id: r['id'], long: (r['text'] as string).length > 10 })),
        { columns: [{ name: 'id', type: 'string' }, { name: 'long', type: 'bool' }] },
      );
    }
    const filtered = await consolidate({
      input_path: `${prefix}/normalized/outputs/main`,
      output_path: `${prefix}/filtered`,
      filters: [{ type: 'remove_docs', attribute_path: `${prefix}/attributes/length`, name: 'long' }],
    });
    const kept = (await Promise.all((await listPartFiles(`${prefix}/filtered`)).map(readAll))).flat();
    expect(kept.every((r) => (r['text'] as string).length <= 10)).toBe(true);
    expect(filtered.docs_out).toBe(kept.length);
    expect(filtered.docs_in).toBe(109);
  });

  it('refuses a corrupt gs:// parquet file, naming it, and writes nothing', async () => {
    const prefix = `gs://${await gcs!.createUniqueBucket('curation-bad')}/marin`;
    await writeText(`${prefix}/raw/a.parquet`, 'PAR1 this is not a parquet file PAR1');
    await expect(normalizeToParquet({ input_path: `${prefix}/raw`, output_path: `${prefix}/normalized` })).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_INVALID',
      details: { path: `${prefix}/raw/a.parquet` },
    });
    expect((await ls(prefix)).map((i) => i.url.slice(prefix.length + 1))).toEqual(['raw']);
  });
});
