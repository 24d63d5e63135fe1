import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkTokenCache } from './cache-check.js';
import { createCacheWriter } from './cache-writer.js';
import { writeShardedLedger } from './sharded-ledger.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cache-check-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const META = { tokenizer: 'org/tok@0123456789abcdef0123456789abcdef01234567', vocab_size: 1024 };

async function writePart(url: string, rows: number, seed: number, metadata: Record<string, unknown> = META): Promise<void> {
  const w = await createCacheWriter(url, { preprocessorMetadata: metadata });
  for (let r = 0; r < rows; r++) await w.append(Int32Array.from({ length: 1 + ((r + seed) % 9) }, (_, i) => (r * 7 + i) % 1000));
  await w.finish();
}

/** A sharded split of two parts: 5 rows and 3 rows. */
async function sharded(metadata: Record<string, unknown> = META): Promise<string> {
  const split = join(dir, 'train');
  await writePart(join(split, 'part-00000-of-00002'), 5, 0, metadata);
  await writePart(join(split, 'part-00001-of-00002'), 3, 4, metadata);
  await writeShardedLedger(split, ['part-00000-of-00002', 'part-00001-of-00002']);
  return split;
}

async function editJson(path: string, edit: (x: Record<string, unknown>) => void): Promise<void> {
  const x = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  edit(x);
  await writeFile(path, JSON.stringify(x));
}

const invalidAt = (path: string): unknown => expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID', details: expect.objectContaining({ path }) });

describe('checkTokenCache()', () => {
  it('accepts a sharded split and reports its rows, tokens and recorded tokenizer', async () => {
    const split = await sharded();
    const check = await checkTokenCache(split);
    expect(check).toMatchObject({ rows: 8, layout: 'sharded', tokenizer: META.tokenizer });
    expect(check.tokens).toBeGreaterThan(8);
    const part = await checkTokenCache(join(split, 'part-00001-of-00002'));
    expect(part).toMatchObject({ rows: 3, layout: 'consolidated' });
  });

  it('names the split ledger when it is missing', async () => {
    const split = await sharded();
    await rm(join(split, 'shard_ledger.json'));
    await expect(checkTokenCache(split)).rejects.toEqual(invalidAt(join(split, 'shard_ledger.json')));
  });

  it('names a part ledger that is missing', async () => {
    const split = await sharded();
    const ledger = join(split, 'part-00001-of-00002', 'shard_ledger.json');
    await rm(ledger);
    await expect(checkTokenCache(split)).rejects.toEqual(invalidAt(ledger));
  });

  it('names a missing array metadata file', async () => {
    const split = await sharded();
    const meta = join(split, 'part-00000-of-00002', 'input_ids', 'data', 'zarr.json');
    await rm(meta);
    await expect(checkTokenCache(split)).rejects.toEqual(invalidAt(meta));
  });

  it('names a missing shard file (which a reader would silently read as zeros)', async () => {
    const split = await sharded();
    const shard = join(split, 'part-00001-of-00002', 'input_ids', 'offsets', 'c', '0');
    await rm(shard);
    await expect(checkTokenCache(split)).rejects.toEqual(invalidAt(shard));
  });

  it('refuses a truncated shard file, naming its array', async () => {
    const split = await sharded();
    await truncate(join(split, 'part-00000-of-00002', 'input_ids', 'data', 'c', '0'), 100);
    await expect(checkTokenCache(split)).rejects.toEqual(invalidAt(join(split, 'part-00000-of-00002', 'input_ids', 'data')));
  });

  it('refuses ledger counts that disagree with the arrays or with the parts', async () => {
    const split = await sharded();
    const partLedger = join(split, 'part-00000-of-00002', 'shard_ledger.json');
    await editJson(partLedger, (l) => (l['total_num_rows'] = 6));
    await expect(checkTokenCache(split)).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
    await editJson(partLedger, (l) => (l['total_num_rows'] = 5));
    await editJson(join(split, 'shard_ledger.json'), (l) => ((l['shard_rows'] as Record<string, number>)['part-00001-of-00002'] = 4));
    await expect(checkTokenCache(split)).rejects.toEqual(invalidAt(join(split, 'shard_ledger.json')));
  });

  it('refuses a cache that records no tokenizer', async () => {
    const split = await sharded({ vocab_size: 1024 });
    await expect(checkTokenCache(split)).rejects.toEqual(invalidAt(join(split, 'shard_ledger.json')));
  });
});
