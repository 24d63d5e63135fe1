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

  it('takes Marin\'s CORE_TASKS keys and shipped task names as strings', () => {
    const step = defaultEval(model, { evals: ['arc_easy', 'hellaswag_10shot', 'tiny_mc'] });
    expect(step.config.evals.value).toEqual([
      { name: 'arc_easy', num_fewshot: 10 },
      { name: 'hellaswag', num_fewshot: 10, task_alias: 'hellaswag_10shot' },
      { name: 'tiny_mc', num_fewshot: 0 },
    ]);
    expect(pathOf(step)).toBe(pathOf(defaultEval(model, { evals: [{ name: 'arc_easy', num_fewshot: 10 }, { name: 'hellaswag', num_fewshot: 10, task_alias: 'hellaswag_10shot' }, { name: 'tiny_mc' }] })));
  });

  it('refuses an unknown task key before any step runs', () => {
    expect(() => defaultEval(model, { evals: ['hellaswag'] })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: expect.objectContaining({ field: 'evals', key: 'hellaswag' }) }));
  });

  it('versions shipped task data, leaves hub-data configs as they were, and refuses tasks without a shipped slice', () => {
    const hub = defaultEval(model, { evals: ['arc_easy'] });
    expect('task_data' in hub.config).toBe(false);
    expect(pathOf(defaultEval(model, { evals: ['arc_easy'], taskData: 'hub' }))).toBe(pathOf(hub));
    const shipped = defaultEval(model, { evals: ['arc_easy', 'piqa', 'boolq', 'lambada_openai', 'tiny_mc'], taskData: 'shipped' });
    expect(shipped.config.task_data?.value).toBe('shipped');
    expect(pathOf(defaultEval(model, { evals: ['arc_easy'], taskData: 'shipped' }))).not.toBe(pathOf(hub));
    expect(() => defaultEval(model, { evals: ['arc_easy', 'hellaswag_0shot'], taskData: 'shipped' })).toThrow(
      expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: expect.objectContaining({ tasks: ['hellaswag'] }) }),
    );
  });
});
