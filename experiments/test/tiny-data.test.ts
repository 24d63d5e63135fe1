import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { levanterLockPath, openTokenCache, tokenizerLocation } from '@marin/pipeline';
import { ensurePythonEnv } from '@marin/rigging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode, runProcess } from './helpers/run-process.js';

const runTinyData = (prefix: string) => runNode(['tiny_data.js', '--prefix', prefix]);

// Levanter's own loader, exactly as its LmDataConfig opens an existing cache.
const LEVANTER_READ = `
import json, sys
from levanter.data.text.cache import load_lm_dataset_cache
from levanter.data.text.formats import TextLmDatasetFormat
from levanter.tokenizers import load_tokenizer
tok = load_tokenizer(sys.argv[1])
out = {}
for split in ("train", "validation"):
    cache = load_lm_dataset_cache(sys.argv[2] + "/" + split, TextLmDatasetFormat(), tok)
    first = cache.get_batch_sync([0])[0]["input_ids"]
    out[split] = {"rows": len(cache), "tokens": int(cache.flat_field_length("input_ids")), "first": [int(x) for x in first[:32]]}
print(json.dumps(out))
`;

describe('experiments/tiny_data.js', () => {
  let prefix = '';
  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'tiny-data-'));
  });
  afterAll(async () => {
    await rm(prefix, { recursive: true, force: true });
  });

  it('downloads, transforms and tokenizes the shipped fixture; a rerun skips all four steps; Levanter reads the cache', async () => {
    const first = await runTinyData(prefix);
    expect(first.code, first.stderr).toBe(0);

    const [raw] = await readdir(join(prefix, 'raw'));
    expect(raw).toMatch(/^quickstart-[0-9a-f]{6}$/);
    expect(JSON.parse(await readFile(join(prefix, 'raw', raw as string, 'provenance.json'), 'utf8'))).toMatchObject({ dataset: 'marin-community/quickstart' });
    const documents = (await readdir(join(prefix, 'documents'))).sort();
    expect(documents).toEqual([expect.stringMatching(/^quickstart-train-[0-9a-f]{6}$/), expect.stringMatching(/^quickstart-validation-[0-9a-f]{6}$/)]);
    expect((await readdir(join(prefix, 'documents', documents[0] as string))).filter((f) => f.endsWith('.jsonl.gz'))).toEqual([
      'data-00000-of-00002.jsonl.gz',
      'data-00001-of-00002.jsonl.gz',
    ]);
    const [tokenized] = await readdir(join(prefix, 'tokenized'));
    const cacheDir = join(prefix, 'tokenized', tokenized as string);
    for (const split of ['train', 'validation']) {
      expect(JSON.parse(await readFile(join(cacheDir, split, 'shard_ledger.json'), 'utf8'))).toMatchObject({ is_finished: true, layout: 'sharded' });
    }

    const ledgerMtime = (await stat(join(cacheDir, 'train', 'shard_ledger.json'))).mtimeMs;
    const second = await runTinyData(prefix);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('4 steps: 0 ran, 4 skipped (already succeeded)');
    expect((await stat(join(cacheDir, 'train', 'shard_ledger.json'))).mtimeMs).toBe(ledgerMtime);

    const env = await ensurePythonEnv({ lockPath: levanterLockPath() });
    const read = await runProcess(env.python, ['-c', LEVANTER_READ, tokenizerLocation('marin-tiny-bpe'), cacheDir], { env: { JAX_PLATFORMS: 'cpu', MARIN_PREFIX: prefix } });
    expect(read.code, read.stderr).toBe(0);
    const levanter = JSON.parse(read.stdout.trim().split('\n').pop() ?? '{}') as Record<string, { rows: number; tokens: number; first: number[] }>;
    for (const split of ['train', 'validation']) {
      const ours = await openTokenCache(cacheDir, split);
      expect(levanter[split]?.rows).toBe(ours.numRows);
      expect(levanter[split]?.tokens).toBe(ours.numTokens);
      expect(levanter[split]?.first).toEqual(Array.from(await ours.row(0)).slice(0, 32));
    }
    expect(levanter['train']?.rows).toBe(48);
    expect(levanter['validation']?.rows).toBe(12);
  }, 180_000);
});
