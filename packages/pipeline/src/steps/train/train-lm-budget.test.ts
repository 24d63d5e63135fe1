import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toLevanterYaml } from '../../levanter/levanter-yaml.js';
import { checkMixtureCaches } from './mixture-data.js';
import type { MixtureData } from './mixture-data.js';
import { checkInitFrom, resolveNumTrainSteps } from './train-lm-budget.js';
import { parseTrainStepConfig } from './train-step-config.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'train-lm-budget-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cache(path: string, tokens: number): Promise<void> {
  await mkdir(path, { recursive: true });
  await writeFile(join(path, 'shard_ledger.json'), JSON.stringify({ total_num_rows: 3, shard_rows: { a: 3 }, is_finished: true, field_counts: { input_ids: tokens } }));
}

const MODEL = { type: 'llama', max_seq_len: 64, hidden_dim: 32, intermediate_dim: 128, num_layers: 2, num_heads: 2 };

function config(overrides: Record<string, unknown>, train: Record<string, unknown> = {}): ReturnType<typeof parseTrainStepConfig> {
  return parseTrainStepConfig({
    output_path: join(dir, 'out'),
    cache_path: '/c',
    tokenizer: 'marin-tiny-bpe',
    model: MODEL,
    train: { train_batch_size: 8, num_train_steps: null, learning_rate: 3e-3, ...train },
    ...overrides,
  });
}

function mixtureData(components: Record<string, string>, weights: Record<string, number>): MixtureData {
  return {
    components: Object.fromEntries(Object.entries(components).map(([n, p]) => [n, { cache_path: p, tags: [] }])),
    train_weights: weights,
    shuffle: null,
    permutation_type: null,
    mixture_block_size: null,
    stop_strategy: null,
  };
}

describe('resolveNumTrainSteps()', () => {
  it('turns a token budget into steps of batch × seq_len tokens, rounded up', () => {
    expect(resolveNumTrainSteps(config({ budget: { tokens: 5120 } }), {})).toBe(10);
    expect(resolveNumTrainSteps(config({ budget: { tokens: 5121 } }), {})).toBe(11);
    expect(resolveNumTrainSteps(config({ budget: { tokens: 5120 } }, { train_seq_len: 32 }), {})).toBe(20);
  });

  it('turns an epoch budget into steps from the training caches\' token counts', () => {
    const caches = { a: { trainTokens: 3000, hasValidation: false }, b: { trainTokens: 2120, hasValidation: true }, v: { trainTokens: 0, hasValidation: true } };
    expect(resolveNumTrainSteps(config({ budget: { epochs: 2 } }), caches)).toBe(20);
    expect(() => resolveNumTrainSteps(config({ budget: { epochs: 1 } }), { a: { trainTokens: 0, hasValidation: true } })).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
  });

  it('keeps explicit steps', () => {
    expect(resolveNumTrainSteps(config({}, { num_train_steps: 7 }), {})).toBe(7);
  });
});

describe('checkMixtureCaches()', () => {
  it('counts train tokens and finds validation splits; a validation set without a validation cache fails before any job', async () => {
    await cache(join(dir, 'web', 'train'), 1234);
    await cache(join(dir, 'val', 'validation'), 99);
    const caches = await checkMixtureCaches(mixtureData({ web: join(dir, 'web'), val: join(dir, 'val') }, { web: 1, val: 0 }));
    expect(caches).toEqual({ web: { trainTokens: 1234, hasValidation: false }, val: { trainTokens: 0, hasValidation: true } });
    await expect(checkMixtureCaches(mixtureData({ web: join(dir, 'web'), missing: join(dir, 'nothing') }, { web: 1, missing: 0 }))).rejects.toMatchObject({
      code: 'PIPELINE_CACHE_INVALID',
      details: { component: 'missing' },
    });
    await expect(checkMixtureCaches(mixtureData({ web: join(dir, 'web'), code: join(dir, 'nothing') }, { web: 1, code: 1 }))).rejects.toMatchObject({
      code: 'PIPELINE_CACHE_INVALID',
      details: { component: 'code' },
    });
  });
});

describe('checkInitFrom()', () => {
  it('accepts a checkpoint of the same shape and refuses one of another shape, naming the fields', async () => {
    const run = join(dir, 'run');
    await mkdir(join(run, 'checkpoints', 'step-5'), { recursive: true });
    await writeFile(join(run, 'levanter_config.yaml'), toLevanterYaml({ model: { ...MODEL, hidden_dim: 64, num_kv_heads: 2 } }, ['header']));
    await expect(checkInitFrom(config({ init_from_checkpoint: join(run, 'checkpoints', 'step-5') }, { num_train_steps: 5 }))).rejects.toMatchObject({
      code: 'PIPELINE_CHECKPOINT_MISMATCH',
      details: { mismatches: { hidden_dim: { model: 32, init_from: 64 } } },
    });
    await writeFile(join(run, 'levanter_config.yaml'), toLevanterYaml({ model: { ...MODEL, num_kv_heads: 2 } }));
    await expect(checkInitFrom(config({ init_from_checkpoint: join(run, 'checkpoints') }, { num_train_steps: 5 }))).resolves.toBeNull();
    await expect(checkInitFrom(config({ init_from_checkpoint: join(dir, 'absent') }, { num_train_steps: 5 }))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND' });
  });

  it('reads a Hugging Face export\'s config.json, taking the newest step-N of an hf/ directory', async () => {
    const hf = join(dir, 'hf');
    for (const [step, layers] of [[3, 2], [10, 4]] as const) {
      await mkdir(join(hf, `step-${step}`), { recursive: true });
      await writeFile(join(hf, `step-${step}`, 'config.json'), JSON.stringify({ model_type: 'llama', hidden_size: 32, intermediate_size: 128, num_hidden_layers: layers, num_attention_heads: 2, num_key_value_heads: 2 }));
    }
    await expect(checkInitFrom(config({ initialize_from_hf: join(hf, 'step-3') }, { num_train_steps: 5 }))).resolves.toBe(join(hf, 'step-3'));
    await expect(checkInitFrom(config({ initialize_from_hf: hf }, { num_train_steps: 5 }))).rejects.toMatchObject({
      code: 'PIPELINE_CHECKPOINT_MISMATCH',
      details: { mismatches: { num_layers: { model: 2, init_from: 4 } } },
    });
    // A hub id is left for Levanter.
    await expect(checkInitFrom(config({ initialize_from_hf: 'org/model' }, { num_train_steps: 5 }))).resolves.toBe('org/model');
  });
});
