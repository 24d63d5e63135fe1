import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubTokenizerName, parseHubTokenizer } from './hub-tokenizer.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';

describe('parseHubTokenizer()', () => {
  it('reads the object form and the org/name@sha string form', () => {
    expect(parseHubTokenizer({ hubModel: 'meta-llama/Llama-3.1-8B', revision: SHA })).toEqual({ hubModel: 'meta-llama/Llama-3.1-8B', revision: SHA });
    expect(parseHubTokenizer(`meta-llama/Llama-3.1-8B@${SHA}`)).toEqual({ hubModel: 'meta-llama/Llama-3.1-8B', revision: SHA });
    expect(hubTokenizerName({ hubModel: 'org/tok', revision: SHA })).toBe(`org/tok@${SHA}`);
  });

  it('leaves shipped names, URLs, absolute paths and existing relative directories to the location rules', async () => {
    expect(parseHubTokenizer('marin-tiny-bpe')).toBeNull();
    expect(parseHubTokenizer('gs://bucket/tokenizers/llama3')).toBeNull();
    expect(parseHubTokenizer('/abs/tokenizers/llama3')).toBeNull();
    expect(parseHubTokenizer('./tok/llama3')).toBeNull();
    const dir = await mkdtemp(join(tmpdir(), 'hub-tok-'));
    const cwd = process.cwd();
    try {
      process.chdir(dir);
      await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'tokenizers', 'llama3'), { recursive: true }));
      expect(parseHubTokenizer('tokenizers/llama3')).toBeNull();
    } finally {
      process.chdir(cwd);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['a bare hub id (Marin\'s unpinned form)', 'meta-llama/Llama-3.1-8B'],
    ['an object without a revision', { hubModel: 'meta-llama/Llama-3.1-8B' }],
    ['an empty revision', { hubModel: 'meta-llama/Llama-3.1-8B', revision: '' }],
    ['a branch name', { hubModel: 'meta-llama/Llama-3.1-8B', revision: 'main' }],
    ['a short sha', 'meta-llama/Llama-3.1-8B@d04e592'],
    ['a repository id that is not org/name', { hubModel: 'llama', revision: SHA }],
  ])('refuses %s with PIPELINE_CONFIG_INVALID on the tokenizer field', (_what, input) => {
    expect(() => parseHubTokenizer(input as never)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: expect.objectContaining({ field: 'tokenizer' }) }));
  });
});
