import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeText } from '@marin/rigging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadLevanterTokenizer } from './levanter-tokenizer.js';

const TINY_BPE = resolve(dirname(fileURLToPath(import.meta.url)), '../../assets/tokenizers/marin-tiny-bpe');

describe('loadLevanterTokenizer()', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'levanter-tokenizer-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads BOS and EOS from tokenizer_config.json and reports Levanter metadata', async () => {
    const tok = await loadLevanterTokenizer(TINY_BPE, { name: 'marin-tiny-bpe' });
    expect(tok).toMatchObject({ name: 'marin-tiny-bpe', vocabSize: 1024, bosId: 0, eosId: 1, appendBos: true, appendEos: true });
    expect(tok.preprocessorMetadata).toEqual({
      tokenizer: 'marin-tiny-bpe',
      vocab_size: 1024,
      return_attention_mask: false,
      padding: false,
      max_length: null,
      append_bos: true,
      append_eos: true,
    });
  });

  it('encodes [bos] + text + " " + eos, one array per document', async () => {
    const tok = await loadLevanterTokenizer(TINY_BPE);
    const [empty, hello] = await tok.encodeDocuments(['', 'Hello world']);
    expect(Array.from(empty ?? [])).toEqual([0, 222, 1]);
    expect(hello?.[0]).toBe(0);
    expect(hello?.at(-1)).toBe(1);
    const bare = await loadLevanterTokenizer(TINY_BPE, { enforceBos: false, enforceEos: false });
    expect(Array.from((await bare.encodeDocuments(['Hello world']))[0] ?? [])).toEqual(Array.from(hello ?? []).slice(1, -2));
    expect(bare.preprocessorMetadata).toMatchObject({ append_bos: false, append_eos: false });
  });

  it('gives the same ids whatever the batch size and concurrency', async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `document ${i}: ${'word '.repeat(i)}`);
    const a = await (await loadLevanterTokenizer(TINY_BPE, { batchSize: 1, concurrency: 3 })).encodeDocuments(texts);
    const b = await (await loadLevanterTokenizer(TINY_BPE, { batchSize: 1000, concurrency: 1 })).encodeDocuments(texts);
    expect(a).toEqual(b);
  });

  it('loads from a rigging URL', async () => {
    for (const file of ['tokenizer.json', 'tokenizer_config.json']) {
      await writeText(`memory://tokenizer-test/tiny/${file}`, await readFile(join(TINY_BPE, file), 'utf8'));
    }
    const remote = await loadLevanterTokenizer('memory://tokenizer-test/tiny/');
    const local = await loadLevanterTokenizer(TINY_BPE);
    expect(remote.name).toBe('memory://tokenizer-test/tiny/');
    expect(await remote.encodeDocuments(['a b c'])).toEqual(await local.encodeDocuments(['a b c']));
  });

  it('appends nothing when tokenizer_config.json is absent', async () => {
    await writeFile(join(dir, 'tokenizer.json'), await readFile(join(TINY_BPE, 'tokenizer.json')));
    const tok = await loadLevanterTokenizer(dir);
    expect(tok).toMatchObject({ bosId: undefined, eosId: undefined, appendBos: false, appendEos: false });
  });

  it('reports a missing or malformed tokenizer.json as PIPELINE_TOKENIZER_INVALID naming the file', async () => {
    await expect(loadLevanterTokenizer(dir)).rejects.toMatchObject({
      code: 'PIPELINE_TOKENIZER_INVALID',
      details: { path: `${dir}/tokenizer.json` },
    });
    await writeFile(join(dir, 'tokenizer.json'), '{"model": ');
    await expect(loadLevanterTokenizer(dir)).rejects.toMatchObject({
      code: 'PIPELINE_TOKENIZER_INVALID',
      details: { path: `${dir}/tokenizer.json` },
    });
  });

  it('reports a malformed tokenizer_config.json as PIPELINE_TOKENIZER_INVALID naming it', async () => {
    await writeFile(join(dir, 'tokenizer.json'), await readFile(join(TINY_BPE, 'tokenizer.json')));
    await writeFile(join(dir, 'tokenizer_config.json'), '[1, 2]');
    await expect(loadLevanterTokenizer(dir)).rejects.toMatchObject({
      code: 'PIPELINE_TOKENIZER_INVALID',
      details: { path: `${dir}/tokenizer_config.json` },
    });
  });

  it('rejects invalid options as PIPELINE_CONFIG_INVALID', async () => {
    await expect(loadLevanterTokenizer(TINY_BPE, { batchSize: 0 })).rejects.toMatchObject({ code: 'PIPELINE_CONFIG_INVALID' });
  });
});
