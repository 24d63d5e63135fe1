import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Executor, readStatus, silentLogger } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { createLocalClient } from '@marin/fray';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineError } from '../../src/errors.js';
import { llama_nano } from '../../src/steps/train/levanter-model-config.js';
import { trainLm } from '../../src/steps/train/train-lm.js';
import type { TrainLmArgs } from '../../src/steps/train/train-lm.js';
import type { TrainSummary } from '../../src/steps/train/train-summary.js';
import { keepingLogger, quickstartTokenizeStep, recordingClient } from '../helpers/levanter-training.js';
import { openLevanterWorkspace } from '../helpers/levanter-workspace.js';
import type { LevanterWorkspace } from '../helpers/levanter-workspace.js';

let workspace: LevanterWorkspace;
let tokenized: ExecutorStep;

beforeAll(async () => {
  workspace = await openLevanterWorkspace('levanter-train-lm');
  tokenized = quickstartTokenizeStep(workspace.marinPrefix);
  await new Executor({ prefix: workspace.prefix, logger: silentLogger }).run([tokenized], { progress: 'plain' });
}, 600_000);

afterAll(async () => {
  await workspace?.close();
});

function args(name: string, overrides: Partial<TrainLmArgs> = {}): TrainLmArgs {
  return {
    name,
    model: { ...llama_nano, max_seq_len: 64 },
    optimizer: { learning_rate: 3e-3, weight_decay: 0.1, warmup: 0.1, lr_schedule: 'cosine', min_lr_ratio: 0.1 },
    data: tokenized,
    validation: {},
    batchSize: 8,
    seqLen: 64,
    budget: { tokens: 8 * 64 * 6 },
    zLossWeight: null,
    initFrom: null,
    checkpoints: { rollingMinutes: 10, permanentEverySteps: 3 },
    stepsPerEval: 3,
    maxEvalBatches: 2,
    hfExportEverySteps: -1,
    mp: 'p=f32,c=f32',
    resources: { device: { kind: 'cpu' } },
    overrideOutputPath: join(workspace.prefix, 'checkpoints', name),
    compilationCacheDir: join(workspace.dir, 'jax-cache'),
    ...overrides,
  };
}

async function summary(name: string): Promise<TrainSummary> {
  return JSON.parse(await readFile(join(workspace.prefix, 'checkpoints', name, 'train_summary.json'), 'utf8')) as TrainSummary;
}

function pipelineErrorOf(e: unknown): PipelineError | null {
  for (let x: unknown = e; x !== undefined && x !== null; x = (x as { cause?: unknown }).cause) if (PipelineError.is(x)) return x;
  return null;
}

describe('trainLm() with Levanter', () => {
  it('trains for a token budget, then continues from its checkpoint for an epoch budget computed from the cache', async () => {
    const base = trainLm(args('budget'));
    await workspace.run([base], createLocalClient({ logger: keepingLogger() }));
    const first = await summary('budget');
    expect(first.num_train_steps).toBe(6);
    expect(first.final_step).toBe(5);

    const cacheDir = (await readdir(join(workspace.prefix, 'tokenized'))).find((d) => d.startsWith('quickstart-')) ?? 'missing';
    const ledger = JSON.parse(await readFile(join(workspace.prefix, 'tokenized', cacheDir, 'train', 'shard_ledger.json'), 'utf8')) as { field_counts: { input_ids: number } };
    const epochs = 0.05;
    const expected = Math.max(1, Math.ceil((epochs * ledger.field_counts.input_ids) / (8 * 64)));

    const next = trainLm(args('continued', { initFrom: { checkpoint: base }, budget: { epochs } }));
    await workspace.run([next], createLocalClient({ logger: keepingLogger() }));
    expect(await readStatus(join(workspace.prefix, 'checkpoints', 'continued'))).toBe('SUCCESS');
    const second = await summary('continued');
    expect(second.num_train_steps).toBe(expected);
    // Started from the first run's weights: its first loss is near where the first run ended, not at the start.
    expect(second.first_loss).toBeLessThan(first.first_loss);
    const yaml = await readFile(join(workspace.prefix, 'checkpoints', 'continued', 'levanter_config.yaml'), 'utf8');
    expect(yaml).toContain(`"initialize_from_checkpoint_path": ${JSON.stringify(join(workspace.prefix, 'checkpoints', 'budget', 'checkpoints'))}`);
    console.info(`trainLm: ${epochs} epoch of ${ledger.field_counts.input_ids} tokens = ${expected} steps; first loss ${second.first_loss.toFixed(3)} after init_from vs ${first.first_loss.toFixed(3)} from scratch`);
  }, 900_000);

  it('refuses init_from a checkpoint of another model shape before any job starts', async () => {
    const base = trainLm(args('budget'));
    const client = recordingClient(createLocalClient({ logger: keepingLogger() }));
    let failure: unknown = null;
    await workspace
      .run([trainLm(args('wider', { model: { ...llama_nano, max_seq_len: 64, hidden_dim: 64 }, initFrom: { checkpoint: base } }))], client)
      .catch((e: unknown) => {
        failure = e;
      });
    expect(pipelineErrorOf(failure)).toMatchObject({ code: 'PIPELINE_CHECKPOINT_MISMATCH', details: { mismatches: { hidden_dim: { model: 64, init_from: 32 } } } });
    // The base run was already done; only the refused run's step ran, and it submitted nothing.
    expect(client.jobs).toHaveLength(0);
  }, 300_000);
});
