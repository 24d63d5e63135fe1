import { ExecutorStep, THIS_OUTPUT_PATH, VersionGraph, silentLogger, versioned } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import { describe, expect, it } from 'vitest';
import { defaultTrain } from './default-train.js';
import { llama_nano } from './levanter-model-config.js';

const tokenized = new ExecutorStep({ name: 'tokenized/quickstart', fn: null, config: { cache_path: THIS_OUTPUT_PATH, tokenizer: versioned('marin-tiny-bpe') } });
const TRAIN = { train_batch_size: 8, num_train_steps: 20, learning_rate: 3e-3 };

function versionOf(step: ExecutorStep): { config: Record<string, unknown>; path: string; str: string } {
  const graph = new VersionGraph({ prefix: '/tmp/marin', logger: silentLogger });
  graph.computeVersion(step, false);
  const str = graph.versionStrs.get(step) as string;
  return { config: (JSON.parse(str) as { config: Record<string, unknown> }).config, path: graph.outputPaths.get(step) as string, str };
}

describe('defaultTrain()', () => {
  it('names the step checkpoints/<name> and versions the model, the hyperparameters, the tags and the tokenizer', () => {
    const step = defaultTrain('quickstart', tokenized, llama_nano, TRAIN);
    expect(step.name).toBe('checkpoints/quickstart');
    expect(step.resources).toBeNull();
    const { config, path } = versionOf(step);
    expect(Object.keys(config).sort()).toEqual(['cache_path', 'model', 'tags', 'tokenizer', 'train']);
    expect(config['tokenizer']).toBe('marin-tiny-bpe');
    expect(config['model']).toMatchObject({ type: 'llama', hidden_dim: 32, num_layers: 2 });
    expect(config['train']).toMatchObject({ num_train_steps: 20, learning_rate: 0.003, weight_decay: 0.1, lr_schedule: 'cosine' });
    expect(path).toMatch(/^\/tmp\/marin\/checkpoints\/quickstart-[0-9a-f]{6}$/);
    expect(step.config.component_name).toBe('quickstart');
  });

  it('keeps the output path when only resources, environment variables or the compilation cache change', () => {
    const base = versionOf(defaultTrain('t', tokenized, llama_nano, TRAIN)).path;
    const moved = defaultTrain('t', tokenized, llama_nano, { ...TRAIN, resources: ResourceConfig.withTpu('v5litepod-16'), env_vars: { A: '1' } }, { compilationCacheDir: '/cache' });
    expect(versionOf(moved).path).toBe(base);
    expect(moved.config.resources).toMatchObject({ device: { kind: 'tpu', variant: 'v5litepod-16' } });
  });

  it('changes the output path with a hyperparameter or the model', () => {
    const base = versionOf(defaultTrain('t', tokenized, llama_nano, TRAIN)).path;
    expect(versionOf(defaultTrain('t', tokenized, llama_nano, { ...TRAIN, learning_rate: 1e-3 })).path).not.toBe(base);
    expect(versionOf(defaultTrain('t', tokenized, { ...llama_nano, num_layers: 3 }, TRAIN)).path).not.toBe(base);
  });

  it('hashes integral float hyperparameters as Python floats', () => {
    const { str } = versionOf(defaultTrain('t', tokenized, llama_nano, { ...TRAIN, learning_rate: 1, weight_decay: 0 }));
    // The version string writes float(1) as 1.0, as Marin's hash of a Python float does.
    expect(str).toMatch(/"learning_rate": 1\.0[,}]/);
    expect(str).toMatch(/"weight_decay": 0\.0[,}]/);
    expect(str).toMatch(/"train_batch_size": 8[,}]/);
  });

  it('rejects an invalid model or train config with PIPELINE_CONFIG_INVALID naming the field', () => {
    expect(() => defaultTrain('t', tokenized, { ...llama_nano, hidden_dim: 0 }, TRAIN)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: expect.objectContaining({ field: 'hidden_dim' }) }));
    expect(() => defaultTrain('t', tokenized, llama_nano, { ...TRAIN, num_train_steps: -1 })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
    expect(() => defaultTrain('t', tokenized, llama_nano, { ...TRAIN, warmup_steps: 3 } as typeof TRAIN)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });

  it('needs a tokenizer when the cache is a plain path', () => {
    expect(() => defaultTrain('t', '/caches/x', llama_nano, TRAIN)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: { field: 'tokenizer' } }));
    expect(defaultTrain('t', '/caches/x', llama_nano, TRAIN, { tokenizer: 'marin-tiny-bpe' }).config.component_name).toBe('x');
  });
});
