import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Executor, readStatus, silentLogger } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { ResourceConfig, createLocalClient } from '@marin/fray';
import type { Client } from '@marin/fray';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineError } from '../../src/errors.js';
import { llama_nano } from '../../src/steps/train/levanter-model-config.js';
import { defaultTrain } from '../../src/steps/train/default-train.js';
import type { SimpleTrainConfig } from '../../src/steps/train/simple-train-config.js';
import type { TrainSummary } from '../../src/steps/train/train-summary.js';
import { runLevanterPython } from '../helpers/levanter-python.js';
import { keepingLogger, quickstartTokenizeStep, recordingClient } from '../helpers/levanter-training.js';
import { openLevanterWorkspace } from '../helpers/levanter-workspace.js';
import type { LevanterWorkspace } from '../helpers/levanter-workspace.js';

const MODEL = { ...llama_nano, max_seq_len: 64 };
const TRAIN: SimpleTrainConfig = {
  train_batch_size: 8,
  num_train_steps: 20,
  learning_rate: 3e-3,
  steps_per_eval: 10,
  max_eval_batches: 4,
  steps_per_export: 10,
  // f32 compute: bfloat16 brings nothing on a CPU.
  mp: 'p=f32,c=f32',
};
let workspace: LevanterWorkspace;
let dir: string;
let prefix: string;
let tokenized: ExecutorStep;

beforeAll(async () => {
  workspace = await openLevanterWorkspace('levanter-train');
  ({ dir, prefix } = workspace);
  tokenized = quickstartTokenizeStep(workspace.marinPrefix);
  await new Executor({ prefix, logger: silentLogger }).run([tokenized], { progress: 'plain' });
}, 900_000);

afterAll(async () => {
  await workspace?.close();
});

function train(name: string, overrides: Partial<SimpleTrainConfig> = {}, model: object = MODEL, pythonLock: string | null = null): ExecutorStep {
  return defaultTrain(name, tokenized, model as typeof MODEL, { ...TRAIN, ...overrides }, {
    overrideOutputPath: join(prefix, 'checkpoints', name),
    compilationCacheDir: join(dir, 'jax-cache'),
    pythonLock,
  });
}

async function run(step: ExecutorStep, client: Client = createLocalClient({ logger: keepingLogger() })): Promise<void> {
  await workspace.run([step], client);
}

/** The PipelineError somewhere in an executor failure's cause chain. */
function pipelineErrorOf(e: unknown): PipelineError | null {
  for (let x: unknown = e; x !== undefined && x !== null; x = (x as { cause?: unknown }).cause) if (PipelineError.is(x)) return x;
  return null;
}

async function readSummary(out: string): Promise<TrainSummary> {
  return JSON.parse(await readFile(join(out, 'train_summary.json'), 'utf8')) as TrainSummary;
}

describe('defaultTrain() with Levanter on the local Fray backend', () => {
  it('trains a tiny Llama offline, exports a model transformers loads, and summarizes the run', async () => {
    const out = join(prefix, 'checkpoints', 'nano');
    const started = Date.now();
    await run(train('nano'));
    const seconds = (Date.now() - started) / 1000;

    expect(await readStatus(out)).toBe('SUCCESS');
    const summary = await readSummary(out);
    expect(summary.run_id).toBe('nano');
    expect(summary.final_step).toBe(19);
    expect(Number.isFinite(summary.final_loss)).toBe(true);
    expect(summary.final_loss).toBeLessThan(summary.first_loss);
    expect(summary.resumed_from_step).toBeNull();
    expect(summary.eval['eval/quickstart/bpb']).toBeGreaterThan(0);
    expect(summary.paths.latest_hf).toBe(join(out, 'hf', 'step-19'));
    expect(existsSync(join(out, 'checkpoints', 'step-10', 'metadata.json'))).toBe(true);
    expect(existsSync(join(out, 'checkpoints', 'step-19', 'metadata.json'))).toBe(true);
    expect(existsSync(join(out, 'hf', 'step-10', 'model.safetensors'))).toBe(true);
    expect(existsSync(join(out, 'tracker_metrics.jsonl'))).toBe(true);
    const yaml = await readFile(join(out, 'levanter_config.yaml'), 'utf8');
    expect(yaml).toContain('"auto_build_caches": false');

    // The lock has no torch, so transformers loads the export with its Flax classes.
    const loaded = await runLevanterPython(
      `
import sys, numpy as np
from transformers import AutoTokenizer, FlaxAutoModelForCausalLM
model = FlaxAutoModelForCausalLM.from_pretrained(sys.argv[1])
ids = AutoTokenizer.from_pretrained(sys.argv[1])("The river flows", return_tensors="np")["input_ids"]
logits = np.asarray(model(ids).logits)
print("LOADED", type(model).__name__, logits.shape[-1], bool(np.isfinite(logits).all()))
`,
      [join(out, 'hf', 'step-19')],
    );
    expect(loaded.stdout).toContain('LOADED FlaxLlamaForCausalLM 1024 True');
    console.info(`train: 20 steps of llama_nano (seq 64, batch 8) in ${seconds.toFixed(1)} s through the executor`);
  }, 400_000);

  it('resumes a killed run from the last Levanter checkpoint', async () => {
    const out = join(prefix, 'checkpoints', 'resume');
    const step = train('resume', { steps_per_export: 5, steps_per_hf_export: -1 });
    const client = recordingClient(createLocalClient({ logger: keepingLogger(), killGraceMs: 2000 }));
    const first = run(step, client).then(
      () => null,
      (e: unknown) => e,
    );
    // Kill the job once Levanter has committed its first checkpoint.
    const deadline = Date.now() + 300_000;
    while (!existsSync(join(out, 'checkpoints', 'step-5', 'metadata.json'))) {
      if (Date.now() > deadline) throw new Error('no checkpoint appeared');
      await sleep(200);
    }
    await client.jobs.at(-1)?.terminate();
    const failure = await first;
    expect(pipelineErrorOf(failure)).toMatchObject({ code: 'PIPELINE_JOB_FAILED' });
    expect(await readStatus(out)).toBe('FAILED');
    expect(existsSync(join(out, 'train_summary.json'))).toBe(false);
    const kept = (await readdir(join(out, 'checkpoints'))).filter((d) => d.startsWith('step-'));
    expect(kept.length).toBeGreaterThan(0);

    await run(step);
    expect(await readStatus(out)).toBe('SUCCESS');
    const summary = await readSummary(out);
    expect(summary.resumed_from_step).toBeGreaterThanOrEqual(5);
    expect(summary.final_step).toBe(19);
    // The first loss is still the killed attempt's: Levanter's log file spans both attempts.
    expect(summary.first_loss_step).toBeLessThan(summary.resumed_from_step ?? 0);
  }, 600_000);

  it('fails with Levanter\'s own message and the YAML path when Levanter rejects the model config', async () => {
    const out = join(prefix, 'checkpoints', 'bad-heads');
    let failure: unknown = null;
    await run(train('bad-heads', {}, { ...MODEL, num_heads: 3, num_kv_heads: 2 })).catch((e: unknown) => {
      failure = e;
    });
    const error = pipelineErrorOf(failure);
    expect(error).toMatchObject({ code: 'PIPELINE_JOB_FAILED', details: { stage: 'levanter', configPath: join(out, 'levanter_config.yaml') } });
    expect(String(error?.details['errorLine'])).toMatch(/num_heads=3/);
    expect(await readStatus(out)).toBe('FAILED');
    expect(existsSync(join(out, 'levanter_config.yaml'))).toBe(true);
  }, 300_000);

  it('fails fast with PIPELINE_CACHE_INVALID, before any job, when the cache is missing', async () => {
    const missing = join(dir, 'no-such-cache');
    const step = defaultTrain('no-cache', missing, MODEL, TRAIN, { tokenizer: 'marin-tiny-bpe', overrideOutputPath: join(prefix, 'checkpoints', 'no-cache') });
    const client = recordingClient(createLocalClient({ logger: keepingLogger() }));
    let failure: unknown = null;
    await run(step, client).catch((e: unknown) => {
      failure = e;
    });
    expect(pipelineErrorOf(failure)).toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
    expect(client.jobs).toHaveLength(0);
    expect(await readStatus(join(prefix, 'checkpoints', 'no-cache'))).toBe('FAILED');
  }, 60_000);

  it('fails with PIPELINE_JOB_FAILED naming the lock when the Python environment cannot be installed', async () => {
    const lock = join(dir, 'broken.lock');
    await writeFile(lock, 'marin-pipeline-no-such-package==0.0.1\n');
    const out = join(prefix, 'checkpoints', 'broken-lock');
    let failure: unknown = null;
    await run(train('broken-lock', {}, MODEL, lock), createLocalClient({ logger: keepingLogger(), pythonEnvCacheDir: join(dir, 'python-envs') })).catch((e: unknown) => {
      failure = e;
    });
    expect(pipelineErrorOf(failure)).toMatchObject({ code: 'PIPELINE_JOB_FAILED', details: { stage: 'python-env', lock: 'broken.lock' } });
    expect(await readStatus(out)).toBe('FAILED');
    expect(existsSync(join(out, 'levanter_config.yaml'))).toBe(true);
  }, 300_000);

  it('fails with Levanter\'s "no accelerator" error when TPU resources run on the local backend', async () => {
    let failure: unknown = null;
    await run(train('tpu-on-cpu', { resources: ResourceConfig.withTpu('v4-8') })).catch((e: unknown) => {
      failure = e;
    });
    const error = pipelineErrorOf(failure);
    expect(error).toMatchObject({ code: 'PIPELINE_JOB_FAILED', details: { stage: 'levanter' } });
    expect(String(error?.details['errorLine'])).toMatch(/accelerator/i);
    expect(await readStatus(join(prefix, 'checkpoints', 'tpu-on-cpu'))).toBe('FAILED');
  }, 300_000);
});
