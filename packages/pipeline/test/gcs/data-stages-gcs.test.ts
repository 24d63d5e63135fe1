import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Executor, outputPathOf } from '@marin/executor';
import { copyTree, exists, glob, readText } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';
import type { FakeGcsHandle } from '@marin/rigging/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quickstartDataPath, tokenizerLocation } from '../../src/assets.js';
import { openTokenCache } from '../../src/cache/index.js';
import { defaultDownload } from '../../src/steps/download/index.js';
import { defaultTokenize } from '../../src/steps/tokenize/default-tokenize.js';
import { defaultTransform } from '../../src/steps/transform/default-transform.js';
import { startHubServer } from '../../src/testing/hub-server.js';
import { runLevanterPython } from '../helpers/levanter-python.js';

let gcs: FakeGcsHandle | undefined;

beforeAll(async () => {
  gcs = await startFakeGcs({ setEnv: true });
});

afterAll(async () => {
  await gcs?.close();
});

describe('the data stages on a gs:// prefix (fake-gcs-server)', () => {
  it('downloads from the hub, transforms and tokenizes into gs://; a rerun skips all; the cache reads back', async () => {
    // No "test" in the bucket name: Marin refuses train paths that look like test data.
    const prefix = `gs://${await gcs!.createUniqueBucket('pipeline-ci')}/marin`;
    // The hub serves the quickstart fixture as dataset marin-community/quickstart at revision abc1234.
    const hubRoot = await mkdtemp(join(tmpdir(), 'hub-'));
    await cp(quickstartDataPath(), join(hubRoot, 'marin-community', 'quickstart', 'abc1234'), { recursive: true });
    await using hub = await startHubServer({ root: hubRoot });
    process.env['HF_ENDPOINT'] = hub.url;
    try {
      const build = () => {
        const raw = defaultDownload('raw/quickstart', 'marin-community/quickstart', { revision: 'abc1234' });
        const train = defaultTransform('quickstart-train', outputPathOf(raw, 'train'));
        const validation = defaultTransform('quickstart-validation', outputPathOf(raw, 'validation'));
        return defaultTokenize('quickstart', train, 'marin-tiny-bpe', { validation });
      };
      const tokens = build();
      const paths = await new Executor({ prefix }).run([tokens]);
      const cacheUrl = paths.get(tokens) as string;
      expect(cacheUrl).toMatch(/^gs:\/\/.+\/marin\/tokenized\/quickstart-[0-9a-f]{6}$/);

      const rawFiles = await glob(`${prefix}/raw/quickstart-*/train/*.jsonl.gz`);
      expect(rawFiles).toHaveLength(2);
      expect(JSON.parse(await readText(rawFiles[0]!.replace(/train\/.*$/, 'provenance.json')))).toMatchObject({ version: 'abc1234' });
      const docs = await glob(`${prefix}/documents/quickstart-train-*/data-*.jsonl.gz`);
      expect(docs.map((u) => u.slice(u.lastIndexOf('/') + 1))).toEqual(['data-00000-of-00002.jsonl.gz', 'data-00001-of-00002.jsonl.gz']);
      // No temp objects are visible once the steps succeeded.
      expect((await glob(`${prefix}/**/*.tmp*`)).length).toBe(0);

      const train = await openTokenCache(cacheUrl, 'train');
      const validation = await openTokenCache(cacheUrl, 'validation');
      expect([train.numRows, validation.numRows]).toEqual([48, 12]);

      const requests = hub.requests.length;
      const again = build();
      await new Executor({ prefix }).run([again]);
      expect(hub.requests.length).toBe(requests);
      expect(await exists(`${cacheUrl}/train/shard_ledger.json`)).toBe(true);

      // Levanter reads gs:// through fsspec/TensorStore; copy the cache down and open it with Levanter's loader.
      const local = await mkdtemp(join(tmpdir(), 'gcs-cache-'));
      try {
        await copyTree(cacheUrl, join(local, 'cache'));
        const script = `
import json, sys
from levanter.data.text.cache import load_lm_dataset_cache
from levanter.data.text.formats import TextLmDatasetFormat
from levanter.tokenizers import load_tokenizer
cache = load_lm_dataset_cache(sys.argv[2], TextLmDatasetFormat(), load_tokenizer(sys.argv[1]))
print(json.dumps({"rows": len(cache), "tokens": int(cache.flat_field_length("input_ids"))}))
`;
        const out = await runLevanterPython(script, [tokenizerLocation('marin-tiny-bpe'), join(local, 'cache', 'train')], { MARIN_PREFIX: local });
        expect(JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}')).toEqual({ rows: train.numRows, tokens: train.numTokens });
      } finally {
        await rm(local, { recursive: true, force: true });
      }
    } finally {
      delete process.env['HF_ENDPOINT'];
      await rm(hubRoot, { recursive: true, force: true });
    }
  });
});
