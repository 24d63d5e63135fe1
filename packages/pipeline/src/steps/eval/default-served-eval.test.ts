import { ExecutorStep, THIS_OUTPUT_PATH, VersionGraph, silentLogger, versioned } from '@marin/executor';
import { describe, expect, it } from 'vitest';
import { defaultTrain } from '../train/default-train.js';
import { llama_nano } from '../train/levanter-model-config.js';
import { defaultServedEval } from './default-served-eval.js';
import { evaluateServed } from './served-eval.js';
import { parseServedEvalStepConfig } from './served-eval-config.js';

const tokenized = new ExecutorStep({ name: 'tokenized/quickstart', fn: null, config: { cache_path: THIS_OUTPUT_PATH, tokenizer: versioned('marin-tiny-bpe') } });
const model = defaultTrain('quickstart', tokenized, llama_nano, { train_batch_size: 8, num_train_steps: 20, learning_rate: 3e-3 }, { tags: ['web'] });

function pathOf(step: ExecutorStep): string {
  const graph = new VersionGraph({ prefix: '/tmp/marin', logger: silentLogger });
  graph.computeVersion(step, false);
  return graph.outputPaths.get(step) as string;
}

describe('defaultServedEval()', () => {
  it('names the step evaluation/served/<train name> and carries the train step\'s cache, tags and model', () => {
    const step = defaultServedEval(model);
    expect(step.name).toBe('evaluation/served/quickstart');
    expect(step.config.component_name).toBe('quickstart');
    expect(step.config.tags).toEqual(['web']);
    expect(step.config.cache_path).toBe(tokenized);
    expect(pathOf(step)).toMatch(/^\/tmp\/marin\/evaluation\/served\/quickstart-[0-9a-f]{6}$/);
  });

  it('versions the batch limit and the batch size, not resources, timeouts or calls in flight', () => {
    const base = pathOf(defaultServedEval(model));
    expect(pathOf(defaultServedEval(model, { resourceConfig: { cpu: 4 }, readyTimeoutMs: 5, callTimeoutMs: 5, maxInFlight: 4 }))).toBe(base);
    expect(pathOf(defaultServedEval(model, { maxEvalBatches: 2 }))).not.toBe(base);
    expect(pathOf(defaultServedEval(model, { evalBatchSize: 4 }))).not.toBe(base);
  });

  it('rejects a step not made by defaultTrain', () => {
    expect(() => defaultServedEval(tokenized as never)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });
});

describe('evaluateServed() before any job', () => {
  it('refuses a config without a cache, naming the field', () => {
    expect(() => parseServedEvalStepConfig({ evaluation_path: '/x', model_path: '/y', model: llama_nano })).toThrow(
      expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: expect.objectContaining({ field: 'cache_path' }) }),
    );
  });

  it('fails with PIPELINE_INPUT_NOT_FOUND when the model has no Hugging Face export', async () => {
    const config = { evaluation_path: '/nonexistent/served', model_path: '/nonexistent/model', model: llama_nano, cache_path: '/nonexistent/cache' };
    await expect(evaluateServed(config, { signal: new AbortController().signal })).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND' });
  });
});
