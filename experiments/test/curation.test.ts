import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTokenCache, readParquetRecords } from '@marin/pipeline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from './helpers/run-process.js';

const runCuration = (prefix: string) => runNode(['curation.js', '--prefix', prefix]);

type Row = Record<string, unknown>;

/** The one output directory of a step under `<prefix>/<group>` whose name starts with `name-`. */
async function stepDir(prefix: string, group: string, name: string): Promise<string> {
  const found = (await readdir(join(prefix, group))).filter((d) => d.startsWith(`${name}-`));
  expect(found, `${group}/${name}`).toEqual([expect.stringMatching(/-[0-9a-f]{6}$/)]);
  return join(prefix, group, found[0] as string);
}

async function readRows(dir: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.parquet')).sort()) for await (const r of readParquetRecords(join(dir, name))) rows.push(r);
  return rows;
}

const count = (rows: Row[], planted: string): number => rows.filter((r) => r['planted'] === planted).length;

describe('experiments/curation.js', () => {
  let prefix = '';
  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'curation-'));
  });
  afterAll(async () => {
    await rm(prefix, { recursive: true, force: true });
  });

  it('normalizes, scores, dedups, decontaminates, consolidates and tokenizes the generated parquet; each stage drops what was planted for it; a rerun skips every step', async () => {
    const first = await runCuration(prefix);
    expect(first.code, first.stderr.slice(-4000)).toBe(0);
    expect(first.stderr).toContain('10 steps: 10 ran, 0 skipped');

    // The input: parquet files of several row groups, every document labelled with how it was planted.
    const rawDir = join(await stepDir(prefix, 'raw', 'curation-synthetic'), 'data');
    expect((await readdir(rawDir)).sort()).toEqual(['train-00000-of-00003.parquet', 'train-00001-of-00003.parquet', 'train-00002-of-00003.parquet']);
    const raw = await readRows(rawDir);
    const planted = Object.fromEntries(['original', 'exact', 'near', 'contaminated', 'spam', 'blank'].map((k) => [k, count(raw, k)]));
    expect(planted).toMatchObject({ blank: 2, contaminated: 12, spam: 60 });
    expect(planted['exact']).toBeGreaterThan(10);
    expect(planted['near']).toBeGreaterThan(10);

    // normalize: blank texts filtered, planted exact copies moved to dups/, the rest in sorted partitions.
    const normalized = await stepDir(prefix, 'normalized', 'curation-synthetic');
    const artifact = JSON.parse(await readFile(join(normalized, '.artifact'), 'utf8')) as { counters: Record<string, number> };
    const unique = raw.length - (planted['blank'] ?? 0) - (planted['exact'] ?? 0);
    expect(artifact.counters).toMatchObject({
      'normalize/records_in': raw.length,
      'normalize/empty_text_filtered': planted['blank'],
      'normalize/duplicate_records_out': planted['exact'],
      'normalize/unique_records_out': unique,
    });
    const parts = (await readdir(join(normalized, 'outputs/main'))).sort();
    expect(parts.length).toBeGreaterThan(1);
    const docs = await readRows(join(normalized, 'outputs/main'));
    expect(docs).toHaveLength(unique);
    expect(count(docs, 'exact')).toBe(0);

    // The attribute stages: one row per document, co-partitioned with normalize's output.
    for (const [group, dir] of [
      ['attributes/quality', 'outputs/main'],
      ['attributes/decon', 'outputs/main'],
      ['attributes/fuzzy-dups', 'outputs/source_000'],
    ] as const) {
      const out = join(await stepDir(prefix, group, 'curation-synthetic'), dir);
      expect((await readdir(out)).filter((n) => n.endsWith('.parquet')).sort(), group).toEqual(parts);
      expect(await readRows(out), group).toHaveLength(unique);
    }

    // consolidate: spam under the quality threshold, all but one document of each near-duplicate family, and
    // the documents carrying an eval question are gone; everything else is kept.
    const filtered = await stepDir(prefix, 'filtered', 'curation-synthetic');
    const kept = await readRows(filtered);
    expect(kept).toHaveLength(unique - (planted['spam'] ?? 0) - (planted['near'] ?? 0) - (planted['contaminated'] ?? 0));
    expect(count(kept, 'spam') + count(kept, 'contaminated') + count(kept, 'exact') + count(kept, 'blank')).toBe(0);
    const families = kept.map((r) => r['family']);
    expect(new Set(families).size).toBe(families.length);
    const consolidated = JSON.parse(await readFile(join(filtered, '.artifact'), 'utf8')) as { docs_in: number; docs_out: number };
    expect(consolidated).toMatchObject({ docs_in: unique, docs_out: kept.length });

    // tokenize: a finished Levanter cache with one row per kept document.
    const tokenized = await stepDir(prefix, 'tokenized', 'curation-synthetic');
    expect(JSON.parse(await readFile(join(tokenized, 'train', 'shard_ledger.json'), 'utf8'))).toMatchObject({ is_finished: true });
    const cache = await openTokenCache(tokenized, 'train');
    expect(cache.numRows).toBe(kept.length);
    expect((await cache.row(0)).length).toBeGreaterThan(100);

    const ledgerMtime = (await stat(join(tokenized, 'train', 'shard_ledger.json'))).mtimeMs;
    const second = await runCuration(prefix);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('10 steps: 0 ran, 10 skipped (already succeeded)');
    expect((await stat(join(tokenized, 'train', 'shard_ledger.json'))).mtimeMs).toBe(ledgerMtime);
  }, 180_000);

  it('--train adds the quickstart\'s training on the curated tokens as an eleventh step (dry run: nothing written)', async () => {
    const dry = join(prefix, 'dry');
    const r = await runNode(['curation.js', '--prefix', dry, '--dry-run', '--train']);
    expect(r.code, r.stderr).toBe(0);
    const output = `${r.stdout}\n${r.stderr}`;
    expect(output).toContain('11 step(s) selected');
    expect(output).toMatch(/run checkpoints\/curation-synthetic-[0-9a-f]{6}: .*after tokenized\/curation-synthetic-[0-9a-f]{6}/);
    await expect(stat(dry)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
