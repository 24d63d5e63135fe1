// defaultTrain on a real Ray head: the executor runs the train step, whose Levanter job goes to Ray with the
// Levanter lock as its pythonEnv; the head's one node finds the environment .ci/run built from the same lock.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Executor, readStatus, silentLogger } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { createRayClient } from '@marin/fray';
import type { Client, RayClient } from '@marin/fray';
import { startRayHead } from '@marin/fray/testing';
import type { RayHead } from '@marin/fray/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llama_nano } from '../../src/steps/train/levanter-model-config.js';
import { defaultTrain } from '../../src/steps/train/default-train.js';
import type { SimpleTrainConfig } from '../../src/steps/train/simple-train-config.js';
import type { TrainSummary } from '../../src/steps/train/train-summary.js';
import { levanterPython } from '../helpers/levanter-python.js';
import { keepingLogger, quickstartTokenizeStep, recordingClient } from '../helpers/levanter-training.js';
import { openLevanterWorkspace } from '../helpers/levanter-workspace.js';
import type { LevanterWorkspace } from '../helpers/levanter-workspace.js';

const MODEL = { ...llama_nano, max_seq_len: 64 };
const TRAIN: SimpleTrainConfig = {
  train_batch_size: 8,
  num_train_steps: 10,
  learning_rate: 3e-3,
  steps_per_eval: 5,
  max_eval_batches: 2,
  steps_per_export: 5,
  mp: 'p=f32,c=f32',
};
let workspace: LevanterWorkspace;
let dir: string;
let prefix: string;
let tokenized: ExecutorStep;
let head: RayHead | null = null;

beforeAll(async () => {
  // Fails with the command that creates the Levanter environment when it is missing.
  await levanterPython();
  workspace = await openLevanterWorkspace('levanter-train-ray');
  ({ dir, prefix } = workspace);
  tokenized = quickstartTokenizeStep(workspace.marinPrefix);
  await new Executor({ prefix, logger: silentLogger }).run([tokenized], { progress: 'plain' });
  head = await startRayHead({ numCpus: 2 });
}, 300_000); // the Ray head alone may take up to 150 s under a full test run

afterAll(async () => {
  await head?.close();
  await workspace?.close();
}, 60_000);

function rayClient(): RayClient {
  if (head === null) throw new Error('the Ray head did not start');
  return createRayClient({ address: head.address, python: head.python, logger: keepingLogger(), jobPrefix: `pipeline-${Date.now().toString(36)}-` });
}

async function run(step: ExecutorStep, client: Client): Promise<void> {
  await workspace.run([step], client);
}

describe('defaultTrain() with Levanter on the Ray Fray backend', () => {
  it('trains llama_nano as a Ray job in the Levanter environment, and a rerun skips the finished step', async () => {
    const out = join(prefix, 'checkpoints', 'nano-ray');
    const step = defaultTrain('nano-ray', tokenized, MODEL, TRAIN, { overrideOutputPath: out, compilationCacheDir: join(dir, 'jax-cache') });
    const ray = rayClient();
    const client = recordingClient(ray);
    const started = Date.now();
    await run(step, client);
    const seconds = (Date.now() - started) / 1000;

    expect(client.jobs).toHaveLength(1);
    const job = client.jobs[0];
    const info = await ray.handle(job?.jobId ?? '').info();
    expect(info).toMatchObject({ state: 'SUCCEEDED', metadata: { fray_python_env: 'levanter.lock' } });
    const logs = await ray.handle(info.submissionId).logs({ maxLines: 5000 });
    // The node found the environment of the lock already built (the same cache the local backend uses).
    expect(logs.filter((l) => l.startsWith('[python-env] reusing Python') || l.startsWith('[python-env] building Python'))).toHaveLength(1);

    expect(await readStatus(out)).toBe('SUCCESS');
    const summary = JSON.parse(await readFile(join(out, 'train_summary.json'), 'utf8')) as TrainSummary;
    expect(summary).toMatchObject({ run_id: 'nano-ray', final_step: 9, resumed_from_step: null });
    expect(summary.final_loss).toBeLessThan(summary.first_loss);
    expect(existsSync(join(out, 'checkpoints', 'step-5', 'metadata.json'))).toBe(true);
    expect(existsSync(join(out, 'checkpoints', 'step-9', 'metadata.json'))).toBe(true);
    expect(existsSync(join(out, 'hf', 'step-9', 'model.safetensors'))).toBe(true);

    const again = recordingClient(rayClient());
    await run(step, again);
    expect(again.jobs).toHaveLength(0);
    expect(await readStatus(out)).toBe('SUCCESS');
    console.info(`train on Ray: 10 steps of llama_nano (seq 64, batch 8) in ${seconds.toFixed(1)} s through the executor`);
  }, 600_000);
});
