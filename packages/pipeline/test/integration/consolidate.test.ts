import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listPartFiles } from '../../src/attributes/attribute-dataset.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../../src/formats/parquet-records.js';
import { consolidate } from '../../src/steps/consolidate/consolidate.js';
import { normalizeToParquet } from '../../src/steps/normalize/normalize.js';

interface TempDir extends AsyncDisposable {
  path: string;
}

async function tempDir(): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), 'pipeline-consolidate-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

async function readAll(url: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for await (const r of readParquetRecords(url)) rows.push(r);
  return rows;
}

/** A normalized source of 200 documents in several partitions, and each document's score and duplicate flag. */
async function normalizedSource(dir: string): Promise<{ main: string; parts: string[]; docs: Record<string, unknown>[][] }> {
  await mkdir(join(dir, 'raw'), { recursive: true });
  const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ id: i, text: `document ${i} ${'x'.repeat(i % 40)}`, n: i }));
  await writeFile(join(dir, 'raw', 'a.jsonl'), `${lines.join('\n')}\n`);
  await normalizeToParquet({ input_path: join(dir, 'raw'), output_path: join(dir, 'norm'), target_partition_bytes: 3000 });
  const main = join(dir, 'norm', 'outputs/main');
  const parts = await listPartFiles(main);
  return { main, parts, docs: await Promise.all(parts.map(readAll)) };
}

const score = (n: bigint): number => (Number(n) * 37) % 100 / 100;

/** Writes an attribute dataset co-partitioned with the source: per part, `{ id, <column> }` rows in source order. */
async function writeAttributes(
  dir: string,
  parts: string[],
  docs: Record<string, unknown>[][],
  column: { name: string; type: 'float64' | 'bool' },
  value: (doc: Record<string, unknown>) => unknown,
  skip: (doc: Record<string, unknown>) => boolean = () => false,
): Promise<void> {
  for (const [p, url] of parts.entries()) {
    const rows = (docs[p] ?? []).filter((d) => !skip(d)).map((d) => ({ id: d['id'], [column.name]: value(d) }));
    await writeParquetPart(join(dir, url.slice(url.lastIndexOf('/') + 1)), rows, { columns: [{ name: 'id', type: 'string' }, column] });
  }
}

describe('consolidate()', () => {
  it('keeps documents passing every rule by a sorted merge with co-partitioned attributes, and counts per rule', async () => {
    await using dir = await tempDir();
    const { main, parts, docs } = await normalizedSource(dir.path);
    expect(parts.length).toBeGreaterThan(1);
    const quality = join(dir.path, 'attr-quality');
    const dedup = join(dir.path, 'attr-dedup');
    await writeAttributes(quality, parts, docs, { name: 'quality_score', type: 'float64' }, (d) => score(d['source_id'] as bigint));
    // every 7th document has no dedup row: dropped and counted as missing, as Marin does
    await writeAttributes(dedup, parts, docs, { name: 'duplicate', type: 'bool' }, (d) => Number(d['source_id']) % 5 === 0, (d) => Number(d['source_id']) % 7 === 3);
    const output = join(dir.path, 'filtered');
    const result = await consolidate({
      input_path: main,
      output_path: output,
      filters: [
        { type: 'classify', attribute_path: quality, name: 'quality_score', lower_threshold: 0.3 },
        { type: 'remove_docs', attribute_path: dedup, name: 'duplicate' },
      ],
    });

    const all = docs.flat();
    const passQuality = all.filter((d) => score(d['source_id'] as bigint) >= 0.3);
    const hasDedup = passQuality.filter((d) => Number(d['source_id']) % 7 !== 3);
    const kept = hasDedup.filter((d) => Number(d['source_id']) % 5 !== 0);
    expect(result).toMatchObject({
      docs_in: 200,
      docs_out: kept.length,
      filters: [
        { rejected: all.length - passQuality.length, missing: 0 },
        { rejected: hasDedup.length - kept.length, missing: passQuality.length - hasDedup.length },
      ],
    });
    const outParts = await listPartFiles(output);
    expect(outParts.map((u) => u.slice(u.lastIndexOf('/') + 1))).toEqual(parts.map((u) => u.slice(u.lastIndexOf('/') + 1)));
    const out = (await Promise.all(outParts.map(readAll))).flat();
    expect(out).toEqual(kept);
    expect(await readdir(output)).not.toContain('.work');
  });

  it('resolves keep_fraction to a dataset-wide threshold', async () => {
    await using dir = await tempDir();
    const { main, parts, docs } = await normalizedSource(dir.path);
    const quality = join(dir.path, 'attr-quality');
    await writeAttributes(quality, parts, docs, { name: 'quality_score', type: 'float64' }, (d) => Number(d['source_id']) / 200);
    const result = await consolidate({
      input_path: main,
      output_path: join(dir.path, 'filtered'),
      filters: [{ type: 'classify', attribute_path: quality, name: 'quality_score', keep_fraction: 0.25 }],
    });
    // scores 0, 0.005, … 0.995: the 0.75 quantile (nearest rank below) is rank 149, so 51 documents stay
    expect(result.filters[0]?.filter.lower_threshold).toBe(149 / 200);
    expect(result.docs_out).toBe(51);
  });

  it('refuses attribute datasets whose partitions do not match the source, writing nothing', async () => {
    await using dir = await tempDir();
    const { main, parts, docs } = await normalizedSource(dir.path);
    const quality = join(dir.path, 'attr-quality');
    await writeAttributes(quality, parts.slice(0, -1), docs, { name: 'quality_score', type: 'float64' }, () => 1);
    const output = join(dir.path, 'filtered');
    await expect(
      consolidate({ input_path: main, output_path: output, filters: [{ type: 'classify', attribute_path: quality, name: 'quality_score', lower_threshold: 0.5 }] }),
    ).rejects.toMatchObject({ code: 'PIPELINE_SCHEMA_MISMATCH', details: { path: quality } });
    await expect(readdir(output)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses an attribute dataset without the filtered column', async () => {
    await using dir = await tempDir();
    const { main, parts, docs } = await normalizedSource(dir.path);
    const quality = join(dir.path, 'attr-quality');
    await writeAttributes(quality, parts, docs, { name: 'other', type: 'float64' }, () => 1);
    await expect(
      consolidate({ input_path: main, output_path: join(dir.path, 'f'), filters: [{ type: 'classify', attribute_path: quality, name: 'quality_score' }] }),
    ).rejects.toMatchObject({ code: 'PIPELINE_SCHEMA_MISMATCH', details: { column: 'quality_score' } });
  });
});
