import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Executor, silentLogger } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quickstartDataPath, tokenizerLocation } from '../../src/assets.js';
import { openTokenCache } from '../../src/cache/index.js';
import { readJsonlRecords } from '../../src/formats/jsonl-records.js';
import { defaultTokenize } from '../../src/steps/tokenize/default-tokenize.js';
import { startHubServer } from '../../src/testing/hub-server.js';
import type { HubServerHandle } from '../../src/testing/hub-server.js';
import { loadLevanterTokenizer } from '../../src/tokenizer/levanter-tokenizer.js';

const SHA = '3f1c0b5e9a7d2c4b6e8f0a1b2c3d4e5f60718293';
const MODEL = 'marin-test/tiny-bpe';
const TRAIN = join(quickstartDataPath(), 'train');
const VALIDATION = join(quickstartDataPath(), 'validation');

let work: string;
let hub: HubServerHandle;
let savedEndpoint: string | undefined;

async function texts(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const f of (await readdir(dir)).filter((n) => n.endsWith('.jsonl.gz')).sort()) {
    for await (const { record } of readJsonlRecords(join(dir, f))) out.push(record['text'] as string);
  }
  return out;
}

function executor(): Executor {
  return new Executor({ prefix: join(work, 'prefix'), logger: silentLogger, progressStream: { write: () => true } });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'hub-tokenizer-'));
  // The shipped quickstart tokenizer, published as a model repository with files that are not the tokenizer's.
  const repo = join(work, 'hub', MODEL, SHA);
  await cp(tokenizerLocation('marin-tiny-bpe'), repo, { recursive: true });
  await writeFile(join(repo, 'config.json'), '{"model_type": "llama"}\n');
  await mkdir(join(repo, 'weights'));
  await writeFile(join(repo, 'weights', 'model.safetensors'), Buffer.alloc(4096, 7));
  hub = await startHubServer({ root: join(work, 'hub') });
  savedEndpoint = process.env['HF_ENDPOINT'];
  process.env['HF_ENDPOINT'] = hub.url;
});

afterAll(async () => {
  if (savedEndpoint === undefined) delete process.env['HF_ENDPOINT'];
  else process.env['HF_ENDPOINT'] = savedEndpoint;
  await hub.close();
  await rm(work, { recursive: true, force: true });
});

describe('defaultTokenize() with a tokenizer from the hub', () => {
  it('downloads only the tokenizer files once, tokenizes with them and records the hub id and revision', async () => {
    const step = defaultTokenize('hub-demo', TRAIN, { hubModel: MODEL, revision: SHA }, { validation: VALIDATION });
    const download = step.config.tokenizer as ExecutorStep;
    const paths = await executor().run([step]);
    const fetched = hub.requests.filter((r) => r.path.includes('/resolve/')).map((r) => r.path.slice(r.path.lastIndexOf('/') + 1)).sort();
    expect(fetched).toEqual(['special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json']);
    expect(hub.requests.every((r) => r.path.startsWith(`/api/models/${MODEL}/tree/${SHA}`) || r.path.startsWith(`/${MODEL}/resolve/${SHA}/`))).toBe(true);
    const tokDir = paths.get(download) ?? '';
    expect(tokDir).toMatch(/\/raw\/tokenizers\/marin-test--tiny-bpe-[0-9a-f]{6}$/);
    expect((await readdir(tokDir)).filter((f) => !f.startsWith('.')).sort()).toEqual(['provenance.json', 'special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json']);

    const shipped = await loadLevanterTokenizer(tokenizerLocation('marin-tiny-bpe'));
    for (const [split, dir] of [['train', TRAIN], ['validation', VALIDATION]] as const) {
      const cache = await openTokenCache(paths.get(step) ?? '', split);
      expect(cache.metadata['tokenizer']).toBe(`${MODEL}@${SHA}`);
      const expected = await shipped.encodeDocuments(await texts(dir));
      expect(cache.numRows).toBe(expected.length);
      for (let i = 0; i < expected.length; i++) expect(Array.from(await cache.row(i))).toEqual(Array.from(expected[i] ?? []));
    }

    // A second run, and a second tokenize step with the same tokenizer, fetch nothing more.
    const before = hub.requests.length;
    const other = defaultTokenize('hub-demo-2', VALIDATION, `${MODEL}@${SHA}`, { isValidation: true });
    const again = await executor().run([step, other]);
    expect(again.get(other.config.tokenizer as ExecutorStep)).toBe(tokDir);
    expect(hub.requests.length).toBe(before);
  });

  it('refuses a hub id without a revision before any request or job', () => {
    const before = hub.requests.length;
    expect(() => defaultTokenize('hub-bad', TRAIN, MODEL)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: expect.objectContaining({ field: 'tokenizer' }) }));
    expect(() => defaultTokenize('hub-bad', TRAIN, { hubModel: MODEL } as never)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
    expect(hub.requests.length).toBe(before);
  });
});
