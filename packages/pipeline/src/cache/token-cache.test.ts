import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCacheWriter } from './cache-writer.js';
import type { CacheWriterOptions } from './cache-writer.js';
import { writeShardedLedger } from './sharded-ledger.js';
import { openTokenCache } from './token-cache.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'token-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Deterministic documents; row r has 1 + (r * 7919) % maxLen tokens. */
function docs(count: number, maxLen: number, seed = 0): Int32Array[] {
  return Array.from({ length: count }, (_, r) => Int32Array.from({ length: 1 + (((r + seed) * 7919) % maxLen) }, (_, i) => ((r + seed) * 31 + i * 17) % 50_000));
}

async function writeCache(url: string, rows: readonly Int32Array[], opts: CacheWriterOptions = {}): Promise<void> {
  const w = await createCacheWriter(url, opts);
  for (const row of rows) await w.append(row);
  await w.finish();
}

function flat(rows: readonly Int32Array[]): Int32Array {
  const out = new Int32Array(rows.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of rows) {
    out.set(r, at);
    at += r.length;
  }
  return out;
}

describe('createCacheWriter()', () => {
  it('writes a consolidated cache whose ledger and stats carry the counts and metadata', async () => {
    const rows = docs(50, 300);
    const w = await createCacheWriter(join(dir, 'train'), { preprocessorMetadata: { tokenizer: 'tok', append_eos: true } });
    for (const row of rows) await w.append(row);
    const tokens = rows.reduce((n, r) => n + r.length, 0);
    expect(await w.finish()).toEqual({ rows: 50, tokens });
    const ledger = JSON.parse(await readFile(join(dir, 'train', 'shard_ledger.json'), 'utf8'));
    expect(ledger).toEqual({
      total_num_rows: 50,
      shard_rows: { 'part-00000': 50 },
      is_finished: true,
      finished_shards: ['part-00000'],
      field_counts: { input_ids: tokens },
      field_counts_by_shard: { 'part-00000': { input_ids: tokens } },
      layout: 'consolidated',
      metadata: { preprocessor_metadata: { tokenizer: 'tok', append_eos: true } },
    });
    expect(JSON.parse(await readFile(join(dir, 'train', '.stats.json'), 'utf8'))).toEqual({ total_tokens: tokens, total_elements: 50 });
  });

  it('refuses appends and a second finish after finish or abort as PIPELINE_WRITER_CLOSED', async () => {
    const done = await createCacheWriter(join(dir, 'done'));
    await done.append([1, 2]);
    await done.finish();
    await expect(done.append([3])).rejects.toMatchObject({ code: 'PIPELINE_WRITER_CLOSED', details: { state: 'finished' } });
    await expect(done.finish()).rejects.toMatchObject({ code: 'PIPELINE_WRITER_CLOSED' });
    const dropped = await createCacheWriter(join(dir, 'dropped'));
    await dropped.abort();
    await expect(dropped.append([1])).rejects.toMatchObject({ code: 'PIPELINE_WRITER_CLOSED', details: { state: 'aborted' } });
  });

  it('rejects invalid options as PIPELINE_CONFIG_INVALID', async () => {
    await expect(createCacheWriter(join(dir, 'x'), { compression: 'zstd' as 'lz4' })).rejects.toMatchObject({ code: 'PIPELINE_CONFIG_INVALID' });
  });

  it('leaves no ledger behind when aborted', async () => {
    const w = await createCacheWriter(join(dir, 'train'));
    await w.append([1, 2, 3]);
    await w.abort();
    await expect(openTokenCache(dir, 'train')).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
  });
});

describe('openTokenCache()', () => {
  it('reads back every row and flat windows across rows and inner chunks (int32 and int64, lz4 and stored)', async () => {
    const rows = docs(400, 2000); // ~400k tokens: two inner chunks of data
    const all = flat(rows);
    for (const [dtype, compression] of [['int32', 'lz4'], ['int64', 'none']] as const) {
      const url = join(dir, `${dtype}-${compression}`);
      await writeCache(join(url, 'train'), rows, { dtype, compression });
      const cache = await openTokenCache(url, 'train');
      expect([cache.numRows, cache.numTokens]).toEqual([rows.length, all.length]);
      for (const i of [0, 1, 137, 399]) expect([...(await cache.row(i))]).toEqual([...rows[i]!]);
      const start = 262_100;
      expect([...(await cache.tokens(start, start + 100))]).toEqual([...all.subarray(start, start + 100)]);
    }
  });

  it('reads an empty cache', async () => {
    await writeCache(join(dir, 'train'), []);
    const cache = await openTokenCache(join(dir, 'train'));
    expect([cache.numRows, cache.numTokens]).toEqual([0, 0]);
    expect(await cache.tokens(0, 0)).toHaveLength(0);
  });

  it('reads the sharded layout as the parts concatenated in ledger order, empty parts included', async () => {
    const parts = [docs(30, 500, 0), [], docs(20, 700, 99)];
    const names = ['part-00000', 'part-00001', 'part-00002'];
    for (const [i, name] of names.entries()) await writeCache(join(dir, 'train', name), parts[i]!, { preprocessorMetadata: { tokenizer: 'tok' } });
    const result = await writeShardedLedger(join(dir, 'train'), names);
    const rows = parts.flat();
    const all = flat(rows);
    expect(result).toEqual({ rows: 50, tokens: all.length });
    const ledger = JSON.parse(await readFile(join(dir, 'train', 'shard_ledger.json'), 'utf8'));
    expect(ledger).toMatchObject({
      layout: 'sharded',
      total_num_rows: 50,
      shard_rows: { 'part-00000': 30, 'part-00001': 0, 'part-00002': 20 },
      finished_shards: names,
      field_counts: { input_ids: all.length },
      metadata: { preprocessor_metadata: { tokenizer: 'tok' } },
    });
    const cache = await openTokenCache(dir, 'train');
    expect([cache.numRows, cache.numTokens]).toEqual([50, all.length]);
    for (const i of [0, 29, 30, 49]) expect([...(await cache.row(i))]).toEqual([...rows[i]!]);
    const boundary = flat(parts[0]!).length;
    expect([...(await cache.tokens(boundary - 5, boundary + 5))]).toEqual([...all.subarray(boundary - 5, boundary + 5)]);
    expect(cache.metadata).toEqual({ tokenizer: 'tok' });
  });

  it('rejects part names Levanter would not accept', async () => {
    await writeCache(join(dir, 'train', 'a'), docs(2, 5));
    await expect(writeShardedLedger(join(dir, 'train'), ['a', 'a'])).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
    await expect(writeShardedLedger(join(dir, 'train'), ['gs://x/a'])).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
    await expect(writeShardedLedger(join(dir, 'train'), ['a', 'missing'])).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
  });

  it('rejects a missing, unfinished or malformed cache with PIPELINE_CACHE_INVALID naming the path', async () => {
    const url = join(dir, 'train');
    await expect(openTokenCache(dir, 'train')).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID', message: expect.stringContaining(url) });
    await writeCache(url, docs(3, 10));
    await writeFile(join(url, 'shard_ledger.json'), JSON.stringify({ total_num_rows: 3, shard_rows: {}, is_finished: false }));
    await expect(openTokenCache(url)).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
    await writeFile(join(url, 'shard_ledger.json'), '{"total_num_rows": ');
    await expect(openTokenCache(url)).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
    await writeFile(join(url, 'shard_ledger.json'), JSON.stringify({ total_num_rows: 3, shard_rows: {}, is_finished: true }));
    await rm(join(url, 'input_ids', 'data', 'zarr.json'));
    await expect(openTokenCache(url)).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
  });

  it('rejects a sharded ledger whose counts disagree with its parts', async () => {
    await writeCache(join(dir, 'train', 'p0'), docs(3, 10));
    await writeShardedLedger(join(dir, 'train'), ['p0']);
    const path = join(dir, 'train', 'shard_ledger.json');
    const ledger = JSON.parse(await readFile(path, 'utf8'));
    ledger.shard_rows.p0 = 4;
    ledger.total_num_rows = 4;
    await writeFile(path, JSON.stringify(ledger));
    await expect(openTokenCache(dir, 'train')).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
  });
});
