import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { readStatus } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { ResourceConfig, createIrisBackend, createLocalClient, withClient } from '@marin/fray';
import { startLocalCluster } from '@marin/iris';
import { atomicWrite, isProcessAlive, pollUntil } from '@marin/rigging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quickstartDataPath } from '../../src/assets.js';
import { openTokenCache } from '../../src/cache/token-cache.js';
import { defaultEval } from '../../src/steps/eval/default-eval.js';
import { defaultServedEval } from '../../src/steps/eval/default-served-eval.js';
import type { EvalResults } from '../../src/steps/eval/eval-results.js';
import { evaluateServed } from '../../src/steps/eval/served-eval.js';
import type { ServedEvalReport } from '../../src/steps/eval/served-eval.js';
import { decodeScoredBatch, encodeSequences } from '../../src/steps/eval/served-loss.js';
import { startServedModel } from '../../src/steps/eval/served-model.js';
import { levanterPythonEnv, levanterRuntime } from '../../src/levanter/levanter-runtime.js';
import { toLevanterYaml } from '../../src/levanter/levanter-yaml.js';
import { defaultTokenize } from '../../src/steps/tokenize/default-tokenize.js';
import { defaultTrain } from '../../src/steps/train/default-train.js';
import { levanterModelSection, llama_nano } from '../../src/steps/train/levanter-model-config.js';
import { keepingLogger } from '../helpers/levanter-training.js';
import { openLevanterWorkspace } from '../helpers/levanter-workspace.js';
import type { LevanterWorkspace } from '../helpers/levanter-workspace.js';

const MODEL = { ...llama_nano, max_seq_len: 64 };
/** The served loss is Levanter's within float32 summation-order noise (measured: ~3e-8). */
const LOSS_TOLERANCE = 1e-5;

let workspace: LevanterWorkspace;
let dir: string;
let model: ReturnType<typeof defaultTrain>;
let hfExport: string;
let cachePath: string;
/** Levanter eval_lm's validation loss of the trained model (the first test). */
let levanterLoss: number | undefined;

async function run(steps: ExecutorStep[]): Promise<Map<ExecutorStep, string>> {
  return await workspace.run(steps, createLocalClient({ logger: keepingLogger() }));
}

/** `pid args` of every live `served_lm.py` process whose command line mentions `marker`. */
function servedProcesses(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('served_lm.py') && line.includes(marker));
}

beforeAll(async () => {
  workspace = await openLevanterWorkspace('levanter-served-eval');
  ({ dir } = workspace);
  const tokenized = defaultTokenize('quickstart', join(quickstartDataPath(), 'train'), 'marin-tiny-bpe', { validation: join(quickstartDataPath(), 'validation') });
  model = defaultTrain(
    'quickstart',
    tokenized,
    MODEL,
    { train_batch_size: 8, num_train_steps: 20, learning_rate: 3e-3, steps_per_eval: 10, max_eval_batches: 4, mp: 'p=f32,c=f32' },
    { compilationCacheDir: join(dir, 'jax-cache') },
  );
  const outputs = await run([model]);
  hfExport = join(outputs.get(model) as string, 'hf', 'step-19');
  cachePath = outputs.get(tokenized) as string;
}, 400_000);

afterAll(async () => {
  await workspace?.close();
});

describe('defaultServedEval() on the local Fray backend', () => {
  it('serves the checkpoint as an actor whose validation loss equals Levanter eval_lm\'s on the same data, and leaves no process behind', async () => {
    const served = defaultServedEval(model, { maxEvalBatches: 4, compilationCacheDir: join(dir, 'jax-cache') });
    const levanter = defaultEval(model, { maxEvalBatches: 4, compilationCacheDir: join(dir, 'jax-cache') });
    expect(served.name).toBe('evaluation/served/quickstart');
    const servedStart = Date.now();
    const servedOut = (await run([served])).get(served) as string;
    const servedSeconds = (Date.now() - servedStart) / 1000;
    const levanterStart = Date.now();
    const levanterOut = (await run([levanter])).get(levanter) as string;
    const levanterSeconds = (Date.now() - levanterStart) / 1000;
    expect(await readStatus(servedOut)).toBe('SUCCESS');

    const got = JSON.parse(await readFile(join(servedOut, 'results.json'), 'utf8')) as EvalResults;
    const want = JSON.parse(await readFile(join(levanterOut, 'results.json'), 'utf8')) as EvalResults;
    for (const task of ['validation', 'validation/quickstart']) {
      const g = got.results[task] ?? {};
      const w = want.results[task] ?? {};
      expect(Math.abs((g['loss,none'] as number) - (w['loss,none'] as number))).toBeLessThan(LOSS_TOLERANCE);
      expect(Math.abs((g['bits_per_byte,none'] as number) - (w['bits_per_byte,none'] as number))).toBeLessThan(LOSS_TOLERANCE);
    }
    expect(got.model_name).toBe(want.model_name);
    levanterLoss = want.results['validation']?.['loss,none'] as number;

    const report = JSON.parse(await readFile(join(servedOut, 'served_eval.json'), 'utf8')) as ServedEvalReport;
    const cache = await openTokenCache(cachePath, 'validation');
    const sequences = Math.min(Math.floor(cache.numTokens / 64), 4 * 8);
    expect(report).toMatchObject({ batch_size: 8, seq_len: 64, sequences, batches: Math.ceil(sequences / 8), tokens: sequences * 63 });
    expect(report.docs).toBeGreaterThanOrEqual(1);
    expect(report.docs).toBeLessThanOrEqual(cache.numRows);
    expect(got['n-samples']['validation']).toEqual({ original: cache.numRows, effective: report.docs });
    // The actor's job was terminated at the end of the step: its process is gone.
    expect(isProcessAlive(report.pid)).toBe(false);
    expect(servedProcesses(servedOut)).toEqual([]);
    console.info(
      `bench served eval (load ${loadavg()[0]?.toFixed(1)}): ${report.tokens} tokens; served step ${servedSeconds.toFixed(1)} s ` +
        `(ready ${report.ready_seconds.toFixed(1)} s, streaming ${report.stream_seconds.toFixed(2)} s = ${report.tokens_per_second.toFixed(0)} tokens/s, ` +
        `${(report.tokens / servedSeconds).toFixed(0)} tokens/s end to end) vs Levanter eval_lm step ${levanterSeconds.toFixed(1)} s ` +
        `(${(report.tokens / levanterSeconds).toFixed(0)} tokens/s end to end); loss ${report.loss} vs ${String(want.results['validation']?.['loss,none'])}`,
    );
  }, 600_000);

  it('answers loglikelihood for ragged batches larger than its compiled batch, refuses bad calls with a code, and fails a call at once when its process is killed', async () => {
    const out = join(dir, 'served-api');
    await mkdir(out, { recursive: true });
    const configPath = join(out, 'served_lm_config.yaml');
    const config = {
      hf_checkpoint: hfExport,
      model: levanterModelSection(MODEL, hfExport, hfExport),
      trainer: { id: 'served_lm', mp: 'p=f32,c=f32', tracker: { type: 'noop' }, log_dir: join(out, 'logs'), require_accelerator: false, jax_compilation_cache_dir: join(dir, 'jax-cache') },
      batch_size: 4,
      seq_len: 64,
    };
    await atomicWrite(configPath, toLevanterYaml(config as never, []));
    const client = createLocalClient({ logger: keepingLogger() });
    const resources = new ResourceConfig();
    await withClient(client, async () => {
      const servedModel = await startServedModel({
        jobName: 'served-api',
        configPath,
        logPath: join(out, 'logs/served_lm.log'),
        resources,
        envVars: levanterRuntime(resources.device, {}).envVars,
        pythonEnv: levanterPythonEnv(null),
        readyTimeoutMs: 300_000,
        signal: new AbortController().signal,
      });
      try {
        const cache = await openTokenCache(cachePath, 'validation');
        const window = await cache.tokens(0, 64 * 6);
        const full = Array.from({ length: 6 }, (_, i) => window.subarray(i * 64, (i + 1) * 64));
        const ragged = [...full, window.subarray(0, 10), window.subarray(64, 65)];
        const reply = decodeScoredBatch(await servedModel.handle.call('loglikelihood', encodeSequences(ragged)), ragged.length);
        expect(reply).not.toBeNull();
        expect([...(reply?.tokens ?? [])]).toEqual([63, 63, 63, 63, 63, 63, 9, 0]);
        expect(reply?.logprob[7]).toBe(0);
        // A sequence scores the same alone as inside a batch of others (per-sequence independence).
        const alone = decodeScoredBatch(await servedModel.handle.call('loglikelihood', encodeSequences([ragged[6] as Int32Array])), 1);
        expect(Math.abs((alone?.logprob[0] ?? 0) - (reply?.logprob[6] ?? 1))).toBeLessThan(1e-3);
        expect((reply?.logprob[6] ?? 0) < 0).toBe(true);
        const health = (await servedModel.handle.call('health')) as Record<string, unknown>;
        expect(health).toMatchObject({ batch_size: 4, seq_len: 64, calls: 2, sequences: 9 });

        await expect(servedModel.handle.call('generate', [])).rejects.toMatchObject({ code: 'FRAY_ACTOR_METHOD_NOT_FOUND' });
        await expect(servedModel.handle.call('loglikelihood', encodeSequences([Int32Array.from([1, 1_000_000])]))).rejects.toMatchObject({
          code: 'FRAY_ACTOR_METHOD_FAILED',
        });
        await expect(servedModel.handle.call('loglikelihood', encodeSequences([new Int32Array(65)]))).rejects.toMatchObject({ code: 'FRAY_ACTOR_METHOD_FAILED' });
        await expect(servedModel.handle.call('loglikelihood', { tokens: [1, 2], lengths: [2] })).rejects.toMatchObject({ code: 'FRAY_ACTOR_METHOD_FAILED' });

        // Killed mid-call: the caller gets an error well within its deadline, never a hang.
        const big = Array.from({ length: 2000 }, (_, i) => window.subarray((i % 6) * 64, ((i % 6) + 1) * 64));
        const started = Date.now();
        const call = servedModel.handle.callWithOptions('loglikelihood', [encodeSequences(big)], { timeoutMs: 120_000 });
        setTimeout(() => process.kill(servedModel.pid, 'SIGKILL'), 500);
        await expect(call).rejects.toMatchObject({ code: expect.stringMatching(/^FRAY_ACTOR_(UNAVAILABLE|DEAD)$/) });
        expect(Date.now() - started).toBeLessThan(60_000);
      } finally {
        await servedModel.close();
      }
      expect(isProcessAlive(servedModel.pid)).toBe(false);
      expect(servedProcesses(out)).toEqual([]);
    });
    await client.close();
  }, 600_000);

  it('stops the actor when the step is interrupted while it starts, and fails PIPELINE_JOB_FAILED (stage interrupted)', async () => {
    const out = join(dir, 'served-interrupted');
    const controller = new AbortController();
    const config = { evaluation_path: out, model_path: hfExport, model: MODEL, cache_path: cachePath, compilation_cache_dir: join(dir, 'jax-cache') };
    const client = createLocalClient({ logger: keepingLogger() });
    await withClient(client, async () => {
      const evaluating = evaluateServed(config, { signal: controller.signal });
      // Interrupt once the actor's process exists.
      await pollUntil(() => servedProcesses(out).length > 0, { timeoutMs: 120_000, interval: 100 });
      controller.abort(new Error('interrupted'));
      await expect(evaluating).rejects.toMatchObject({ code: 'PIPELINE_JOB_FAILED', details: { stage: 'interrupted' } });
    });
    await client.close();
    expect(await pollUntil(() => servedProcesses(out).length === 0, { timeoutMs: 30_000, interval: 100 })).toBe(true);
  }, 300_000);

  it('fails PIPELINE_JOB_FAILED (stage ready, cause FRAY_ACTOR_NOT_READY) for an actor that never becomes ready in time, and stops it', async () => {
    const out = join(dir, 'served-not-ready');
    const config = { evaluation_path: out, model_path: hfExport, model: MODEL, cache_path: cachePath, ready_timeout_ms: 1_500 };
    const client = createLocalClient({ logger: keepingLogger() });
    await withClient(client, async () => {
      await expect(evaluateServed(config, { signal: new AbortController().signal })).rejects.toMatchObject({
        code: 'PIPELINE_JOB_FAILED',
        details: { stage: 'ready' },
        cause: { code: 'FRAY_ACTOR_NOT_READY' },
      });
    });
    await client.close();
    expect(await pollUntil(() => servedProcesses(out).length === 0, { timeoutMs: 30_000, interval: 100 })).toBe(true);
  }, 120_000);

  it('fails PIPELINE_JOB_FAILED (stage serve) with the actor\'s error line when the export has no weights', async () => {
    const broken = join(dir, 'broken-export');
    await cp(hfExport, broken, { recursive: true });
    await rm(join(broken, 'model.safetensors'), { force: true });
    const out = join(dir, 'served-broken');
    const config = { evaluation_path: out, model_path: broken, model: MODEL, cache_path: cachePath, compilation_cache_dir: join(dir, 'jax-cache') };
    const client = createLocalClient({ logger: keepingLogger() });
    await withClient(client, async () => {
      const failure = evaluateServed(config, { signal: new AbortController().signal });
      await expect(failure).rejects.toMatchObject({ code: 'PIPELINE_JOB_FAILED', details: { stage: 'serve', errorLine: expect.any(String) } });
    });
    await client.close();
    expect(servedProcesses(out)).toEqual([]);
  }, 300_000);
});

describe('evaluateServed() on Iris', () => {
  it('serves the model as an Iris job that registers the endpoint <job id>/actor while it serves; the endpoint goes with the task', async () => {
    const cluster = await startLocalCluster({ workers: 1, cpuMillicores: 2000, termTimeoutMs: 1000 });
    const iris = cluster.client();
    const backend = createIrisBackend({ irisClient: iris, inPlace: true, logger: keepingLogger() });
    const out = join(dir, 'served-iris');
    const config = { evaluation_path: out, model_path: hfExport, model: MODEL, cache_path: cachePath, component_name: 'quickstart', max_eval_batches: 4, compilation_cache_dir: join(dir, 'jax-cache') };
    let endpoint = '';
    let registered: Promise<{ address: string }[]> = Promise.resolve([]);
    try {
      const results = await withClient(backend, () =>
        evaluateServed(config, { signal: new AbortController().signal }, {
          write: () => undefined,
          onServing: (served) => {
            endpoint = `${served.jobId}/actor`;
            registered = iris.listEndpoints({ exact: endpoint });
          },
        }),
      );
      expect((await registered).map((e) => e.address)).toEqual([JSON.parse(await readFile(join(out, 'served_eval.json'), 'utf8')).address]);
      expect(await pollUntil(async () => (await iris.listEndpoints({ exact: endpoint })).length === 0, { timeoutMs: 30_000, interval: 200 })).toBe(true);
      const loss = results.results['validation']?.['loss,none'] as number;
      expect(Number.isFinite(loss)).toBe(true);
      if (levanterLoss !== undefined) expect(Math.abs(loss - levanterLoss)).toBeLessThan(LOSS_TOLERANCE);
    } finally {
      await backend.close();
      await cluster.close();
    }
    expect(servedProcesses(out)).toEqual([]);
  }, 400_000);
});
