import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainLevanter } from './train.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'train-step-'));
  await mkdir(join(dir, 'web', 'train'), { recursive: true });
  await writeFile(join(dir, 'web', 'train', 'shard_ledger.json'), JSON.stringify({ total_num_rows: 1, shard_rows: { a: 1 }, is_finished: true, field_counts: { input_ids: 100 } }));
  await mkdir(join(dir, 'hf', 'step-3'), { recursive: true });
  await writeFile(join(dir, 'hf', 'step-3', 'config.json'), JSON.stringify({ hidden_size: 64, intermediate_size: 128, num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 2 }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function config(out: string, overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    output_path: out,
    tokenizer: 'marin-tiny-bpe',
    data: { components: { web: { cache_path: join(dir, 'web') }, 'offline/x': { cache_path: join(dir, 'missing') } }, train_weights: { web: 1, 'offline/x': 0 } },
    model: { type: 'llama', max_seq_len: 64, hidden_dim: 32, intermediate_dim: 128, num_layers: 2, num_heads: 2 },
    train: { train_batch_size: 8, num_train_steps: 5, learning_rate: 3e-3 },
    ...overrides,
  };
}

describe('trainLevanter() refuses bad input before any job or file', () => {
  // No Fray client is set up here: getting as far as submitting a job would fail with another error.
  const signal = new AbortController().signal;

  it('a validation set whose cache is missing', async () => {
    const out = join(dir, 'out-missing');
    await expect(trainLevanter(config(out, {}), { signal })).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID', details: { component: 'offline/x' } });
    expect(existsSync(join(out, 'levanter_config.yaml'))).toBe(false);
  });

  it('an init_from export of another model shape', async () => {
    const out = join(dir, 'out-shape');
    const data = { components: { web: { cache_path: join(dir, 'web') } }, train_weights: { web: 1 } };
    await expect(trainLevanter(config(out, { data, initialize_from_hf: join(dir, 'hf') }), { signal })).rejects.toMatchObject({
      code: 'PIPELINE_CHECKPOINT_MISMATCH',
      details: { mismatches: { hidden_dim: { model: 32, init_from: 64 } } },
    });
    expect(existsSync(join(out, 'levanter_config.yaml'))).toBe(false);
  });

  it('weight stages off a mixing block', async () => {
    const out = join(dir, 'out-stage');
    const data = { components: { web: { cache_path: join(dir, 'web') } }, train_weights: [[0, { web: 1 }], [3, { web: 2 }]] };
    await expect(trainLevanter(config(out, { data }), { signal })).rejects.toMatchObject({ code: 'PIPELINE_MIXTURE_INVALID', details: { stage: 1 } });
  });
});
