import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Executor, VersionGraph, silentLogger } from '@marin/executor';
import type { StepContext } from '@marin/executor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quickstartDataPath, tokenizerLocation } from '../../src/assets.js';
import { openTokenCache } from '../../src/cache/index.js';
import { defaultTrain } from '../../src/steps/train/default-train.js';
import { llama_nano } from '../../src/steps/train/levanter-model-config.js';
import { downloadPretokenized, pretokenized } from '../../src/steps/tokenize/pretokenized.js';
import type { PretokenizedResult } from '../../src/steps/tokenize/pretokenized.js';
import { tokenize } from '../../src/steps/tokenize/tokenize.js';
import { startHubServer } from '../../src/testing/hub-server.js';
import type { HubServerHandle } from '../../src/testing/hub-server.js';
import { runLevanterPython } from '../helpers/levanter-python.js';

const ORACLE = join(import.meta.dirname, '..', 'python', 'tokenize_step_oracle.py');
const REPO = 'marin-test/tiny-cache';
const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const TRAIN = join(quickstartDataPath(), 'train');
const VALIDATION = join(quickstartDataPath(), 'validation');

let work: string;
let hub: HubServerHandle;
let cache: string;

async function jsonl(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.jsonl.gz')).sort().map((f) => join(dir, f));
}

/** Publishes the cache our tokenize wrote as the dataset repository `<repo>` at `<revision>`, then lets `damage` break it. */
async function publish(repo: string, revision: string, damage: (dir: string) => Promise<void> = async () => undefined): Promise<void> {
  const dir = join(work, 'hub', repo, revision);
  for (const split of ['train', 'validation']) await cp(join(cache, split), join(dir, split), { recursive: true });
  await damage(dir);
}

function ctxFor(outputPath: string): StepContext {
  return { name: 'tokenized/x', outputPath, signal: new AbortController().signal };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'pretokenized-'));
  cache = join(work, 'ours');
  await tokenize(
    { train_paths: [TRAIN], validation_paths: [VALIDATION], cache_path: cache, tokenizer: 'marin-tiny-bpe', min_part_bytes: 1 },
    { signal: new AbortController().signal },
  );
  await publish(REPO, SHA);
  hub = await startHubServer({ root: join(work, 'hub') });
});

afterAll(async () => {
  await hub.close();
  await rm(work, { recursive: true, force: true });
});

describe('pretokenized()', () => {
  it('downloads a published cache, checks it, and Levanter’s own loader reads it with the ids Levanter’s builder produces', async () => {
    const step = pretokenized(REPO, SHA, { tokenizer: 'marin-tiny-bpe' });
    const saved = process.env['HF_ENDPOINT'];
    process.env['HF_ENDPOINT'] = hub.url;
    let out: string;
    try {
      out = (await new Executor({ prefix: join(work, 'prefix'), logger: silentLogger, progressStream: { write: () => true } }).run([step])).get(step) ?? '';
    } finally {
      if (saved === undefined) delete process.env['HF_ENDPOINT'];
      else process.env['HF_ENDPOINT'] = saved;
    }
    expect(out).toMatch(/\/tokenized\/marin-test--tiny-cache-[0-9a-f]{6}$/);
    for (const split of ['train', 'validation']) {
      const [a, b] = await Promise.all([openTokenCache(cache, split), openTokenCache(out, split)]);
      expect(b.numRows).toBe(a.numRows);
      expect(Array.from(await b.tokens(0, b.numTokens))).toEqual(Array.from(await a.tokens(0, a.numTokens)));
    }

    const spec = {
      tokenizer_dir: tokenizerLocation('marin-tiny-bpe'),
      ts_cache: out,
      work_dir: join(work, 'oracle'),
      splits: { train: await jsonl(TRAIN), validation: await jsonl(VALIDATION) },
      out: join(work, 'oracle.json'),
    };
    await writeFile(join(work, 'oracle-spec.json'), JSON.stringify(spec));
    await runLevanterPython(await readFile(ORACLE, 'utf8'), [join(work, 'oracle-spec.json')], { MARIN_PREFIX: work });
    const result = JSON.parse(await readFile(spec.out, 'utf8')) as Record<string, Record<string, unknown>>;
    for (const split of ['train', 'validation']) {
      expect(result[split]).toMatchObject({ is_sharded: true, mismatched_rows: [] });
      expect(result[split]?.['rows']).toBe(result[split]?.['levanter_rows']);
      expect(result[split]?.['tokens']).toBe(result[split]?.['levanter_tokens']);
    }
  }, 300_000);

  it('checks every split and reports its counts and recorded tokenizer', async () => {
    const result: PretokenizedResult = await downloadPretokenized(
      { hf_dataset_id: REPO, revision: SHA, cache_path: join(work, 'direct') },
      ctxFor(join(work, 'direct')),
      { env: { HF_ENDPOINT: hub.url }, log: () => undefined },
    );
    expect(result.splits.train).toMatchObject({ layout: 'sharded', tokenizer: tokenizerLocation('marin-tiny-bpe') });
    expect(result.splits.validation?.rows).toBe((await openTokenCache(cache, 'validation')).numRows);
  });

  it.each([
    ['a split ledger', 'validation/shard_ledger.json'],
    ['a part ledger', 'train/part-00001-of-00002/shard_ledger.json'],
    ['a shard file', 'train/part-00000-of-00002/input_ids/data/c/0'],
    ['an array’s metadata', 'validation/part-00000-of-00001/input_ids/offsets/zarr.json'],
  ])('refuses a cache missing %s, naming the file', async (_what, missing) => {
    const repo = `marin-test/broken-${missing.replace(/[^a-z0-9]+/gi, '-')}`;
    await publish(repo, SHA, (dir) => rm(join(dir, missing)));
    const outDir = join(work, 'broken', repo);
    await expect(
      downloadPretokenized({ hf_dataset_id: repo, revision: SHA, cache_path: outDir }, ctxFor(outDir), { env: { HF_ENDPOINT: hub.url }, log: () => undefined }),
    ).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID', details: { path: join(outDir, missing) } });
  });

  it('refuses a repository with no cache split', async () => {
    const repo = 'marin-test/not-a-cache';
    await publish(repo, SHA, async (dir) => {
      await rm(join(dir, 'train'), { recursive: true });
      await rm(join(dir, 'validation'), { recursive: true });
      await writeFile(join(dir, 'README.md'), 'nothing here\n');
    });
    const outDir = join(work, 'broken', repo);
    await expect(
      downloadPretokenized({ hf_dataset_id: repo, revision: SHA, cache_path: outDir }, ctxFor(outDir), { env: { HF_ENDPOINT: hub.url }, log: () => undefined }),
    ).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID', details: { path: join(outDir, 'train/shard_ledger.json') } });
  });

  it('is a tokenized input of defaultTrain (cache and tokenizer), versioned by repository and revision', () => {
    const step = pretokenized(REPO, SHA, { tokenizer: 'marin-tiny-bpe' });
    const train = defaultTrain('on-hub-cache', step, llama_nano, { train_batch_size: 8, num_train_steps: 2, learning_rate: 1e-3 });
    expect(train.config.cache_path).toBe(step);
    expect(train.config.tokenizer).toMatchObject({ value: 'marin-tiny-bpe' });
    const graph = new VersionGraph({ prefix: '/p', logger: silentLogger });
    const other = pretokenized(REPO, 'b'.repeat(40), { tokenizer: 'marin-tiny-bpe' });
    graph.computeVersion(step, false);
    graph.computeVersion(other, false);
    expect(graph.outputPaths.get(step)).not.toBe(graph.outputPaths.get(other));
    expect(() => pretokenized(REPO, 'main')).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });
});
