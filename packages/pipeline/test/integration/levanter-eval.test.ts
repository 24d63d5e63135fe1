import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readStatus } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { createLocalClient } from '@marin/fray';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultEval } from '../../src/steps/eval/default-eval.js';
import { evaluateLevanter } from '../../src/steps/eval/eval.js';
import type { EvalResults } from '../../src/steps/eval/eval-results.js';
import { formatEvalSummary } from '../../src/steps/eval/eval-summary.js';
import { defaultTrain } from '../../src/steps/train/default-train.js';
import { llama_nano } from '../../src/steps/train/levanter-model-config.js';
import { quickstartDataPath } from '../../src/assets.js';
import { defaultTokenize } from '../../src/steps/tokenize/default-tokenize.js';
import { keepingLogger } from '../helpers/levanter-training.js';
import { openLevanterWorkspace } from '../helpers/levanter-workspace.js';
import type { LevanterWorkspace } from '../helpers/levanter-workspace.js';

let workspace: LevanterWorkspace;
let dir: string;
let model: ReturnType<typeof defaultTrain>;

async function run(steps: ExecutorStep[]): Promise<Map<ExecutorStep, string>> {
  return await workspace.run(steps, createLocalClient({ logger: keepingLogger() }));
}

beforeAll(async () => {
  workspace = await openLevanterWorkspace('levanter-eval');
  ({ dir } = workspace);
  // The pipeline's own tokenize step writes the cache (sharded layout) that Levanter trains and evaluates on.
  const tokenized = defaultTokenize('quickstart', join(quickstartDataPath(), 'train'), 'marin-tiny-bpe', { validation: join(quickstartDataPath(), 'validation') });
  model = defaultTrain(
    'quickstart',
    tokenized,
    { ...llama_nano, max_seq_len: 64 },
    { train_batch_size: 8, num_train_steps: 20, learning_rate: 3e-3, steps_per_eval: 10, max_eval_batches: 4, mp: 'p=f32,c=f32' },
    { compilationCacheDir: join(dir, 'jax-cache') },
  );
  await run([model]);
}, 400_000);

afterAll(async () => {
  await workspace?.close();
});

describe('defaultEval() with Levanter on the local Fray backend', () => {
  it('writes bits per byte per tag and a harness accuracy of a local multiple-choice task to results.json', async () => {
    const evals = defaultEval(model, { evals: [{ name: 'tiny_mc', num_fewshot: 0 }], maxEvalBatches: 4, compilationCacheDir: join(dir, 'jax-cache') });
    expect(evals.name).toBe('evaluation/levanter/quickstart');
    const started = Date.now();
    const out = (await run([evals])).get(evals) as string;
    const seconds = (Date.now() - started) / 1000;
    expect(await readStatus(out)).toBe('SUCCESS');

    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as EvalResults;
    const validation = results.results['validation/quickstart'] ?? {};
    expect(validation['bits_per_byte,none']).toBeGreaterThan(0);
    expect(Number.isFinite(validation['loss,none'])).toBe(true);
    expect(results.results['validation']?.['byte_perplexity,none']).toBeCloseTo(2 ** (results.results['validation']?.['bits_per_byte,none'] as number), 6);
    const mc = results.results['tiny_mc'] ?? {};
    expect(mc['acc,none']).toBeGreaterThanOrEqual(0);
    expect(mc['acc,none']).toBeLessThanOrEqual(1);
    expect(mc['acc_stderr,none']).toBeGreaterThan(0);
    expect(results['n-samples']['tiny_mc']).toEqual({ original: 20, effective: 20 });
    expect(results.model_name).toMatch(/^quickstart-[0-9a-f]{6}-step-19$/);
    expect(results.config.model_args).toMatch(/hf\/step-19$/);
    console.info(`eval: eval_lm and eval_harness (tiny_mc, 20 items) in ${seconds.toFixed(1)} s through the executor`);
  }, 400_000);

  it('runs Marin core task keys offline on the shipped slices through lm-eval’s registered definitions, and prints a summary', async () => {
    const evals = defaultEval(model, {
      evals: ['arc_easy', 'piqa', 'boolq', 'lambada_openai', 'tiny_mc'],
      taskData: 'shipped',
      maxEvalBatches: 1,
      compilationCacheDir: join(dir, 'jax-cache'),
    });
    const printed: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    const started = Date.now();
    let out: string;
    try {
      out = (await run([evals])).get(evals) as string;
    } finally {
      spy.mockRestore();
    }
    const seconds = (Date.now() - started) / 1000;
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as EvalResults;
    for (const [task, metrics] of [['arc_easy', ['acc', 'acc_norm']], ['piqa', ['acc', 'acc_norm']], ['boolq', ['acc']], ['lambada_openai', ['perplexity', 'acc']]] as const) {
      for (const metric of metrics) expect(Number.isFinite(results.results[task]?.[`${metric},none`])).toBe(true);
    }
    expect(results['n-shot']).toMatchObject({ arc_easy: 10, piqa: 10, boolq: 10, lambada_openai: 0, tiny_mc: 0 });
    expect(results['n-samples']).toMatchObject({ arc_easy: { effective: 4 }, piqa: { effective: 4 }, boolq: { effective: 4 }, lambada_openai: { effective: 20 } });
    // lm-eval's own record of the task configs: the registered prompts and metrics, the shipped data.
    const harness = JSON.parse(await readFile(join(out, 'eval_harness', 'lm_eval_results.json'), 'utf8')) as { configs: Record<string, Record<string, unknown>> };
    expect(harness.configs['arc_easy']).toMatchObject({ doc_to_text: 'Question: {{question}}\nAnswer:', dataset_path: 'json', test_split: 'test' });
    expect(harness.configs['lambada_openai']?.['output_type']).toBe('loglikelihood');
    const summary = await readFile(join(out, 'summary.txt'), 'utf8');
    expect(summary).toBe(formatEvalSummary(results, summary.split('\n')[0] ?? ''));
    expect(printed.join('')).toContain(summary);
    expect(summary.split('\n').length).toBeLessThan(40);
    console.info(`eval: 4 core tasks on shipped slices + tiny_mc in ${seconds.toFixed(1)} s\n${summary}`);
  }, 600_000);

  it('fails with PIPELINE_INPUT_NOT_FOUND, before any job, when the model has no Hugging Face export', async () => {
    const config = { evaluation_path: join(dir, 'eval-missing'), model_path: join(dir, 'never-trained'), model: { ...llama_nano, max_seq_len: 64 }, evals: [{ name: 'tiny_mc' }] };
    await expect(evaluateLevanter(config, { signal: new AbortController().signal })).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND' });
  });
});
