import { ExecutorStep, THIS_OUTPUT_PATH, VersionGraph, silentLogger, versioned } from '@marin/executor';
import { describe, expect, it } from 'vitest';
import { llama_nano } from './levanter-model-config.js';
import { mixture } from './mixture.js';
import { trainLm } from './train-lm.js';
import type { TrainLmArgs } from './train-lm.js';

const tokenized = (name: string): ExecutorStep => new ExecutorStep({ name: `tokenized/${name}`, fn: null, config: { cache_path: THIS_OUTPUT_PATH, tokenizer: versioned('marin-tiny-bpe') } });
const web = tokenized('web');
const ARGS: TrainLmArgs = {
  name: 'lm',
  model: { ...llama_nano, max_seq_len: 64 },
  optimizer: { learning_rate: 3e-3, weight_decay: 0.1, warmup: 0.1, lr_schedule: 'cosine', min_lr_ratio: 0.1 },
  data: mixture({ web: [web, 1], code: [tokenized('code'), 1] }),
  validation: { val: tokenized('val') },
  batchSize: 8,
  seqLen: 64,
  budget: { steps: 20 },
  zLossWeight: 1e-4,
  initFrom: null,
  checkpoints: { rollingMinutes: 5, permanentEverySteps: 10 },
  stepsPerEval: 10,
  resources: { device: { kind: 'cpu' } },
};

function versionOf(step: ExecutorStep): Record<string, unknown> {
  const graph = new VersionGraph({ prefix: '/tmp/marin', logger: silentLogger });
  graph.computeVersion(step, false);
  return (JSON.parse(graph.versionStrs.get(step) as string) as { config: Record<string, unknown> }).config;
}

describe('trainLm()', () => {
  it('writes every decision into the versioned train config and adds the validation sets at weight 0', () => {
    const step = trainLm(ARGS);
    expect(step.name).toBe('checkpoints/lm');
    const config = versionOf(step);
    expect(config['train']).toMatchObject({ train_batch_size: 8, num_train_steps: 20, train_seq_len: 64, z_loss_weight: 0.0001, checkpoint_minutes: 5, steps_per_export: 10, warmup: 0.1 });
    expect(config['data.train_weights']).toEqual({ web: 1, code: 1, val: 0 });
    expect(config['budget']).toBeUndefined();
  });

  it('leaves the step count to the run for a token or epoch budget, and versions the budget', () => {
    const step = trainLm({ ...ARGS, budget: { epochs: 2 } });
    expect(versionOf(step)).toMatchObject({ budget: { epochs: 2 }, train: { num_train_steps: null } });
    expect(() => trainLm({ ...ARGS, budget: { tokens: 0 } })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: { field: 'budget.tokens' } }));
    expect(() => trainLm({ ...ARGS, seqLen: 128 })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: { field: 'seqLen' } }));
  });

  it('starts from a train step\'s checkpoints or Hugging Face exports, as dependencies', () => {
    const base = trainLm(ARGS);
    const fromCheckpoint = trainLm({ ...ARGS, name: 'lm2', initFrom: { checkpoint: base } });
    // The base run is a dependency; the run starts from its checkpoints/ directory.
    expect(versionOf(fromCheckpoint)['init_from_checkpoint']).toMatch(/^DEP\[\d+\]\/checkpoints$/);
    const fromHf = trainLm({ ...ARGS, name: 'lm3', initFrom: { hf: '/exports/model' } });
    expect(versionOf(fromHf)['initialize_from_hf']).toBe('/exports/model');
  });
});
