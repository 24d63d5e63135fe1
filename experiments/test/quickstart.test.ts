import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { levanterLockPath } from '@marin/pipeline';
import { ensurePythonEnv } from '@marin/rigging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDashboardCharts } from './helpers/dashboard-charts.js';
import { IRIS_CLI, NODE_FLAGS, REPO_ROOT, runNode, runProcess } from './helpers/run-process.js';


async function only(dir: string): Promise<string> {
  const entries = await readdir(dir);
  expect(entries).toHaveLength(1);
  return join(dir, entries[0] as string);
}

// transformers loads the Hugging Face export (its Flax class: the environment has JAX, not torch) and runs it.
const LOAD_EXPORT = `
import json, sys
import numpy as np
from transformers import AutoConfig, FlaxAutoModelForCausalLM
path = sys.argv[1]
model = FlaxAutoModelForCausalLM.from_pretrained(path)
logits = model(np.array([[0, 5, 9, 17]], dtype=np.int32)).logits
print(json.dumps({"model_type": AutoConfig.from_pretrained(path).model_type, "shape": list(logits.shape), "finite": bool(np.isfinite(np.asarray(logits)).all())}))
`;

async function expectQuickstartOutputs(prefix: string): Promise<void> {
  const train = await only(join(prefix, 'checkpoints'));
  expect(train).toMatch(/quickstart-[0-9a-f]{6}$/);
  const summary = JSON.parse(await readFile(join(train, 'train_summary.json'), 'utf8')) as Record<string, number>;
  expect(summary['final_step']).toBe(19);
  expect(summary['final_loss']).toBeLessThan(summary['first_loss'] as number);
  expect((await readdir(join(train, 'hf'))).sort()).toEqual(['step-10', 'step-19']);
  expect(await readdir(join(train, 'hf', 'step-19'))).toContain('model.safetensors');

  const evalDir = await only(join(prefix, 'evaluation', 'levanter'));
  const results = JSON.parse(await readFile(join(evalDir, 'results.json'), 'utf8')) as { results: Record<string, Record<string, number>> };
  const bpb = results.results['validation']?.['bits_per_byte,none'];
  expect(bpb).toBeGreaterThan(0);
  expect(Number.isFinite(bpb)).toBe(true);
  expect(results.results['tiny_mc']?.['acc,none']).toBeGreaterThanOrEqual(0);
  expect(results.results['tiny_mc']?.['acc,none']).toBeLessThanOrEqual(1);
}

describe('experiments/quickstart.js', () => {
  let work = '';
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'quickstart-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('downloads, transforms, tokenizes, trains with Levanter and evaluates; the export loads in transformers; a rerun skips every step', async () => {
    const prefix = join(work, 'local');
    const env = { MARIN_PREFIX: prefix };
    const first = await runNode(['quickstart.js'], { env });
    expect(first.code, first.stderr.slice(-4000)).toBe(0);
    expect(first.stderr).toContain('6 steps: 6 ran, 0 skipped');
    await expectQuickstartOutputs(prefix);
    await expectDashboardCharts(prefix, work, { trainStep: 'checkpoints/quickstart', evalSets: [], evalStep: 'evaluation/levanter/quickstart' });

    const python = (await ensurePythonEnv({ lockPath: levanterLockPath() })).python;
    const exported = join(await only(join(prefix, 'checkpoints')), 'hf', 'step-19');
    const loaded = await runProcess(python, ['-c', LOAD_EXPORT, exported], { cwd: work, env: { JAX_PLATFORMS: 'cpu', HF_HUB_OFFLINE: '1' } });
    expect(loaded.code, loaded.stderr.slice(-3000)).toBe(0);
    expect(JSON.parse(loaded.stdout.trim().split('\n').pop() ?? '{}')).toMatchObject({ model_type: 'llama', shape: [1, 4, 1024], finite: true });

    const second = await runNode(['quickstart.js'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('6 steps: 0 ran, 6 skipped (already succeeded)');
  }, 600_000);

  it('`iris job run -- node experiments/quickstart.js` runs train and eval as child jobs on the embedded cluster', async () => {
    const prefix = join(work, 'iris');
    const r = await runNode([IRIS_CLI, 'job', 'run', '--env', `MARIN_PREFIX=${prefix}`, '--', 'node', ...NODE_FLAGS, 'experiments/quickstart.js'], {
      cwd: REPO_ROOT,
      env: { IRIS_HOME: join(work, 'iris-home') },
    });
    const output = `${r.stdout}\n${r.stderr}`;
    expect(r.code, output.slice(-4000)).toBe(0);
    // The Levanter jobs ran as child jobs of the experiment's task, in the worker-built Python environment.
    expect(output).toMatch(/task=train_lm-quickstart-[0-9a-f]{6}-[0-9a-f]{8}\/0 \|/);
    expect(output).toMatch(/task=eval_lm-quickstart-[0-9a-f]{6}-step-19-[0-9a-f]{8}\/0 \|/);
    expect(output).toMatch(/task=eval_harness-quickstart-[0-9a-f]{6}-step-19-[0-9a-f]{8}\/0 \|/);
    await expectQuickstartOutputs(prefix);
  }, 600_000);
});
