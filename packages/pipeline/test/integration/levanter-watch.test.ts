import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Executor, silentLogger } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { createLocalClient } from '@marin/fray';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineError } from '../../src/errors.js';
import { parseMetricsRecords } from '../../src/levanter/levanter-metrics.js';
import { isNoiseLine } from '../../src/levanter/levanter-output.js';
import { llama_nano } from '../../src/steps/train/levanter-model-config.js';
import { defaultTrain } from '../../src/steps/train/default-train.js';
import type { SimpleTrainConfig } from '../../src/steps/train/simple-train-config.js';
import { keepingLogger, quickstartTokenizeStep } from '../helpers/levanter-training.js';
import { openLevanterWorkspace } from '../helpers/levanter-workspace.js';
import type { LevanterWorkspace } from '../helpers/levanter-workspace.js';

const MODEL = { ...llama_nano, max_seq_len: 64 };
const TRAIN: SimpleTrainConfig = {
  train_batch_size: 8,
  num_train_steps: 6,
  learning_rate: 3e-3,
  steps_per_eval: 3,
  max_eval_batches: 2,
  steps_per_export: 6,
  mp: 'p=f32,c=f32',
};
// A line of Levanter's own logging (`I20261126 02:39:18 1405… levanter.trainer …`), maybe behind a job prefix.
const RAW_LEVANTER_LINE = /^(?:\[[^\]]+\] )?[IWEFD]\d{8} \d\d:\d\d:\d\d/;

let workspace: LevanterWorkspace;
let tokenized: ExecutorStep;

beforeAll(async () => {
  workspace = await openLevanterWorkspace('levanter-watch');
  tokenized = quickstartTokenizeStep(workspace.marinPrefix);
  await new Executor({ prefix: workspace.prefix, logger: silentLogger }).run([tokenized], { progress: 'plain' });
}, 180_000);

afterAll(async () => {
  await workspace?.close();
});

function train(name: string, model: object = MODEL): ExecutorStep {
  return defaultTrain(name, tokenized, model as typeof MODEL, TRAIN, {
    overrideOutputPath: join(workspace.prefix, 'checkpoints', name),
    compilationCacheDir: join(workspace.dir, 'jax-cache'),
  });
}

/** Runs one step as `executorMain` would off a terminal; returns every line shown (the display's and the jobs'). */
async function runShown(step: ExecutorStep): Promise<{ shown: string[]; failure: unknown }> {
  const jobs = keepingLogger();
  let text = '';
  let failure: unknown = null;
  await workspace
    .run([step], createLocalClient({ logger: jobs }), { stream: { write: (s: string) => void (text += s) }, statusIntervalMs: 1 })
    .catch((e: unknown) => {
      failure = e;
    });
  return { shown: [...text.split('\n'), ...jobs.lines], failure };
}

function pipelineErrorOf(e: unknown): PipelineError | null {
  for (let x: unknown = e; x !== undefined && x !== null; x = (x as { cause?: unknown }).cause) if (PipelineError.is(x)) return x;
  return null;
}

describe('watching a Levanter training run', () => {
  it('shows status lines instead of Levanter\'s output, keeps that output in a file, and writes one metrics record per step', async () => {
    const out = join(workspace.prefix, 'checkpoints', 'watch');
    const { shown, failure } = await runShown(train('watch'));
    expect(failure).toBeNull();

    const records = parseMetricsRecords(await readFile(join(out, 'metrics', 'metrics.jsonl'), 'utf8'));
    expect(records.map((r) => r.step)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(records.filter((r) => r.metrics['train/loss'] !== undefined).length).toBeGreaterThan(0);
    expect(records.some((r) => (r.metrics['throughput/tokens_per_second'] ?? 0) > 0)).toBe(true);
    expect(records.some((r) => r.metrics['optim/learning_rate'] !== undefined)).toBe(true);
    expect(records.at(-1)?.metrics['eval/quickstart/bpb']).toBeGreaterThan(0);
    expect(records.at(-1)?.metrics['eval/quickstart/loss']).toBeGreaterThan(0);

    const status = shown.filter((l) => /^⋯ checkpoints\/watch-[0-9a-f]{6} step [1-6]\/6 · /.test(l));
    expect(status.length).toBeGreaterThan(0);
    expect(status.some((l) => / · loss \d+\.\d{3} · /.test(l) && / tok\/s · ETA /.test(l))).toBe(true);
    expect(shown.filter((l) => RAW_LEVANTER_LINE.test(l) || l.includes('json_logger') || l.includes('Progress on:train'))).toEqual([]);
    // The backend's own lines are the environment check only.
    expect(shown.filter((l) => l.startsWith('[local-')).every((l) => l.includes('[python-env]'))).toBe(true);

    const logs = (await readdir(join(out, 'logs'))).filter((f) => /^train_lm-.*\.log$/.test(f));
    expect(logs).toHaveLength(1);
    const logPath = join(out, 'logs', logs[0] as string);
    expect(shown.filter((l) => l === `  ↳ Levanter train_lm output: ${logPath}`)).toHaveLength(1);
    const raw = await readFile(logPath, 'utf8');
    expect(raw).toContain('levanter.json_logger');
    expect(raw.split('\n').some((l) => RAW_LEVANTER_LINE.test(l))).toBe(true);
    expect(existsSync(join(out, 'train_summary.json'))).toBe(true);
  }, 600_000);

  it('fails with the last meaningful lines of Levanter\'s output, short ones, and nothing of it shown while it ran', async () => {
    const out = join(workspace.prefix, 'checkpoints', 'watch-bad-heads');
    const { shown, failure } = await runShown(train('watch-bad-heads', { ...MODEL, num_heads: 3, num_kv_heads: 2 }));
    const error = pipelineErrorOf(failure);
    expect(error).toMatchObject({ code: 'PIPELINE_JOB_FAILED', details: { stage: 'levanter' } });
    const tail = error?.details['outputTail'] as string[];
    expect(tail.length).toBeGreaterThan(0);
    expect(tail.length).toBeLessThanOrEqual(20);
    expect(tail.join('\n')).toMatch(/num_heads=3/);
    expect(tail.every((l) => l.length <= 320 && !isNoiseLine(l))).toBe(true);
    expect(String(error?.details['logPath'])).toMatch(new RegExp(`^${out}/logs/train_lm-.*\\.log$`));
    const raw = (await readFile(String(error?.details['logPath']), 'utf8')).split('\n');
    expect(raw.length).toBeGreaterThan(tail.length);
    expect(shown.filter((l) => RAW_LEVANTER_LINE.test(l) || l.includes('Traceback'))).toEqual([]);
  }, 600_000);
});
