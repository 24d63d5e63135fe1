import { describe, expect, it, vi } from 'vitest';
import { llama_nano } from '../train/levanter-model-config.js';
import { evaluateLevanter } from './eval.js';

describe('evaluateLevanter()', () => {
  it('refuses shipped task data for a task without a slice before it looks for the model or starts a job', async () => {
    const write = vi.fn();
    const config = {
      evaluation_path: '/nonexistent/eval',
      model_path: '/nonexistent/model',
      model: llama_nano,
      evals: [{ name: 'arc_easy', num_fewshot: 10 }, { name: 'winogrande' }],
      task_data: 'shipped',
    };
    await expect(evaluateLevanter(config, { signal: new AbortController().signal }, { write })).rejects.toMatchObject({
      code: 'PIPELINE_CONFIG_INVALID',
      details: { field: 'evals', tasks: ['winogrande'] },
    });
    expect(write).not.toHaveBeenCalled();
  });
});
