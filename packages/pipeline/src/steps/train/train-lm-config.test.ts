import { describe, expect, it } from 'vitest';
import { buildTrainLmConfig, trainLayout } from './train-lm-config.js';
import { parseTrainStepConfig } from './train-step-config.js';
import type { TrainLmContext } from './train-lm-config.js';

const config = parseTrainStepConfig({
  output_path: '/out/checkpoints/run-abc123',
  cache_path: '/out/tokenized/q-1',
  tokenizer: 'marin-tiny-bpe',
  component_name: 'q',
  tags: ['web'],
  model: { type: 'llama', max_seq_len: 64, hidden_dim: 32, intermediate_dim: 128, num_layers: 2, num_heads: 2 },
  train: { train_batch_size: 8, num_train_steps: 20, learning_rate: 3e-3, steps_per_export: 5, epsilon: 1e-8 },
});
const ctx: TrainLmContext = {
  runId: 'run-abc123',
  outputPath: '/out/checkpoints/run-abc123',
  layout: trainLayout('/out/checkpoints/run-abc123'),
  data: {
    components: { q: { cache_path: '/out/tokenized/q-1', tags: ['web'] } },
    train_weights: { q: 1 },
    shuffle: null,
    permutation_type: null,
    mixture_block_size: null,
    stop_strategy: null,
  },
  singleCache: true,
  caches: { q: { trainTokens: 1000, hasValidation: true } },
  numTrainSteps: 20,
  tokenizerPath: '/assets/tokenizers/marin-tiny-bpe',
  cpu: true,
  wandb: false,
  logDir: '/out/checkpoints/run-abc123/logs',
};

describe('buildTrainLmConfig()', () => {
  it('loads the cache without a source, never builds it, and checkpoints and exports under the output', () => {
    const c = buildTrainLmConfig(config, ctx) as Record<string, Record<string, unknown>>;
    expect(c['data']).toEqual({
      tokenizer: '/assets/tokenizers/marin-tiny-bpe',
      cache_dir: null,
      auto_build_caches: false,
      components: { q: { type: 'cached', cache_dir: '/out/tokenized/q-1', source: null, tags: ['web'] } },
    });
    expect(c['trainer']).toMatchObject({
      id: 'run-abc123',
      require_accelerator: false,
      tracker: { type: 'json_logger' },
      checkpointer: { base_path: '/out/checkpoints/run-abc123/checkpoints', append_run_id_to_base_path: false, keep: [{ every: 5 }], save_interval: '600s' },
    });
    expect(c['model']).toMatchObject({ num_kv_heads: 2, tokenizer: '/assets/tokenizers/marin-tiny-bpe', reference_checkpoint: '/out/checkpoints/run-abc123/hf_reference' });
    expect(c['hf_save_path']).toBe('/out/checkpoints/run-abc123/hf');
    expect(c['hf_save_steps']).toBe(5);
    expect(c['optimizer']).toMatchObject({ type: 'adam', learning_rate: 3e-3, epsilon: 1e-8, warmup: 0.01 });
  });

  it('adds W&B beside json_logger when a key is present, and leaves the accelerator rule to Levanter off CPU', () => {
    const trainer = buildTrainLmConfig(config, { ...ctx, wandb: true, cpu: false })['trainer'] as Record<string, unknown>;
    expect(trainer['tracker']).toEqual([{ type: 'json_logger' }, { type: 'wandb', project: 'marin', tags: ['web'], replicate_path: '/out/checkpoints/run-abc123', resume: 'allow' }]);
    expect(trainer['require_accelerator']).toBeUndefined();
  });

  it('lets Levanter skip a missing validation split and turns exports off with -1', () => {
    const noValidation = parseTrainStepConfig({ ...config, train: { ...config.train, steps_per_hf_export: -1 } });
    const c = buildTrainLmConfig(noValidation, { ...ctx, caches: { q: { trainTokens: 1000, hasValidation: false } } });
    expect((c['data'] as { components: { q: { source: unknown } } }).components.q.source).toEqual({ type: 'url', train_urls: [], validation_urls: [] });
    expect(c['hf_save_path']).toBeNull();
  });
});

describe('buildTrainLmConfig() with a mixture', () => {
  const mixed = parseTrainStepConfig({
    ...config,
    cache_path: null,
    data: {
      components: { web: { cache_path: '/out/tokenized/web-1', tags: ['web'] }, code: { cache_path: '/out/tokenized/code-2' }, 'offline/gazetteer': { cache_path: '/out/tokenized/offline/gazetteer-3', tags: ['offline'] } },
      train_weights: [[0, { web: 0.7, code: 0.3, 'offline/gazetteer': 0 }], [256, { web: 0.5, code: 0.5, 'offline/gazetteer': 0 }]],
      shuffle: true,
      permutation_type: 'feistel',
      mixture_block_size: 2048,
    },
  });
  const caches = { web: { trainTokens: 10, hasValidation: false }, code: { trainTokens: 10, hasValidation: true }, 'offline/gazetteer': { trainTokens: 0, hasValidation: true } };

  it('writes every cache as a component, the weight stages in steps, and the shuffle settings', () => {
    const c = buildTrainLmConfig(mixed, { ...ctx, data: mixed.data as NonNullable<typeof mixed.data>, singleCache: false, caches });
    expect(c['data']).toEqual({
      tokenizer: '/assets/tokenizers/marin-tiny-bpe',
      cache_dir: null,
      auto_build_caches: false,
      shuffle: true,
      permutation_type: 'feistel',
      mixture_block_size: 2048,
      components: {
        web: { type: 'cached', cache_dir: '/out/tokenized/web-1', source: { type: 'url', train_urls: [], validation_urls: [] }, tags: ['web'] },
        code: { type: 'cached', cache_dir: '/out/tokenized/code-2', source: null, tags: [] },
        'offline/gazetteer': { type: 'cached', cache_dir: '/out/tokenized/offline/gazetteer-3', source: null, tags: ['offline'] },
      },
      train_weights: [
        [0, { web: 0.7, code: 0.3, 'offline/gazetteer': 0 }],
        [256, { web: 0.5, code: 0.5, 'offline/gazetteer': 0 }],
      ],
    });
  });

  it('rejects a stage that does not start on a mixing block, and weights that are all zero or name no component', () => {
    const data = mixed.data as NonNullable<typeof mixed.data>;
    expect(() => parseTrainStepConfig({ ...mixed, data: { ...data, train_weights: [[0, { web: 1 }], [100, { code: 1 }]] } })).toThrow(
      expect.objectContaining({ code: 'PIPELINE_MIXTURE_INVALID', details: expect.objectContaining({ stage: 1, start_step: 100 }) }),
    );
    expect(() => parseTrainStepConfig({ ...mixed, data: { ...data, train_weights: { web: 0, code: 0 } } })).toThrow(expect.objectContaining({ code: 'PIPELINE_MIXTURE_INVALID' }));
    expect(() => parseTrainStepConfig({ ...mixed, data: { ...data, train_weights: { web: 1, books: 1 } } })).toThrow(
      expect.objectContaining({ code: 'PIPELINE_MIXTURE_INVALID', details: expect.objectContaining({ component: 'books' }) }),
    );
    expect(() => parseTrainStepConfig({ ...mixed, data: { ...data, train_weights: { web: -1, code: 1 } } })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });

  it('needs exactly one of cache_path and data, and of num_train_steps and budget', () => {
    expect(() => parseTrainStepConfig({ ...mixed, cache_path: '/x' })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: { field: 'data' } }));
    expect(() => parseTrainStepConfig({ ...config, budget: { tokens: 100 } })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: { field: 'budget' } }));
  });
});

describe('parseTrainStepConfig()', () => {
  it('rejects a train_seq_len above the model context', () => {
    expect(() => parseTrainStepConfig({ ...config, train: { ...config.train, train_seq_len: 128 } })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });
});
