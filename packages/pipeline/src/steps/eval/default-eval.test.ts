import { ExecutorStep, THIS_OUTPUT_PATH, VersionGraph, silentLogger, versioned } from '@marin/executor';
import { describe, expect, it } from 'vitest';
import { defaultTrain } from '../train/default-train.js';
import { llama_nano } from '../train/levanter-model-config.js';
import { defaultEval } from './default-eval.js';

const tokenized = new ExecutorStep({ name: 'tokenized/quickstart', fn: null, config: { cache_path: THIS_OUTPUT_PATH, tokenizer: versioned('marin-tiny-bpe') } });
const model = defaultTrain('quickstart', tokenized, llama_nano, { train_batch_size: 8, num_train_steps: 20, learning_rate: 3e-3 }, { tags: ['web'] });

function pathOf(step: ExecutorStep): string {
  const graph = new VersionGraph({ prefix: '/tmp/marin', logger: silentLogger });
  graph.computeVersion(step, false);
  return graph.outputPaths.get(step) as string;
}

describe('defaultEval()', () => {
  it('names the step evaluation/levanter/<train name> and carries the train step\'s cache, tags and model', () => {
    const step = defaultEval(model, { evals: [{ name: 'tiny_mc' }] });
    expect(step.name).toBe('evaluation/levanter/quickstart');
    expect(step.config.component_name).toBe('quickstart');
    expect(step.config.tags).toEqual(['web']);
    expect(step.config.cache_path).toBe(tokenized);
    expect(step.config.evals.value).toEqual([{ name: 'tiny_mc', num_fewshot: 0 }]);
    expect(pathOf(step)).toMatch(/^\/tmp\/marin\/evaluation\/levanter\/quickstart-[0-9a-f]{6}$/);
  });

  it('versions the tasks and the instance limit, not the resources', () => {
    const base = pathOf(defaultEval(model, { evals: [{ name: 'tiny_mc' }] }));
    expect(pathOf(defaultEval(model, { evals: [{ name: 'tiny_mc', num_fewshot: 0 }], resourceConfig: { cpu: 4 } }))).toBe(base);
    expect(pathOf(defaultEval(model, { evals: [{ name: 'tiny_mc', num_fewshot: 1 }] }))).not.toBe(base);
    expect(pathOf(defaultEval(model, { evals: [{ name: 'tiny_mc' }], maxEvalInstances: 5 }))).not.toBe(base);
  });

  it('rejects a step not made by defaultTrain', () => {
    expect(() => defaultEval(tokenized as never)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });
});
