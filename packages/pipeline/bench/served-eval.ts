/**
 * Served eval against Levanter's own eval on the same checkpoint and data, in the same run: trains the quickstart's
 * tiny model (20 steps, CPU), then evaluates the whole validation split with the served eval step (the export served
 * as a Fray actor, batches streamed from TypeScript) and with the eval step (`levanter.main.eval_lm`), alternating,
 * through the local Fray backend. Reports per side the step's wall time and scored tokens per second end to end, and
 * for the served side also the time to its ready line and the streaming rate once it serves. The Levanter
 * environment must already be built (`node tools/python-env/python-env.mjs packages/pipeline/python/levanter.lock`).
 *
 * Run: node --conditions=@marin/source --import tsx packages/pipeline/bench/served-eval.ts [runs]
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Executor, silentLogger } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { createLocalClient, withClient } from '@marin/fray';
import { quickstartDataPath } from '../src/assets.js';
import { evaluateLevanter } from '../src/steps/eval/eval.js';
import type { EvalResults } from '../src/steps/eval/eval-results.js';
import { evaluateServed } from '../src/steps/eval/served-eval.js';
import type { ServedEvalReport } from '../src/steps/eval/served-eval.js';
import { defaultTokenize } from '../src/steps/tokenize/default-tokenize.js';
import { defaultTrain } from '../src/steps/train/default-train.js';
import { llama_nano } from '../src/steps/train/levanter-model-config.js';

const RUNS = Number(process.argv[2] ?? 2);
const MODEL = { ...llama_nano, max_seq_len: 64 };

const dir = await mkdtemp(join(tmpdir(), 'served-eval-bench-'));
process.env['MARIN_PREFIX'] = join(dir, 'marin');
process.env['HF_HUB_OFFLINE'] = '1';
const quiet = { info: () => undefined, warn: () => undefined };
const silent = (): void => undefined;

async function runSteps(steps: ExecutorStep[]): Promise<Map<ExecutorStep, string>> {
  const client = createLocalClient({ logger: quiet });
  try {
    return await withClient(client, () => new Executor({ prefix: join(dir, 'prefix'), logger: silentLogger }).run(steps, { progress: 'plain' }));
  } finally {
    await client.close();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (xs: number[]): string => xs.map((x) => x.toFixed(1)).join(', ');
try {
  const tokenized = defaultTokenize('quickstart', join(quickstartDataPath(), 'train'), 'marin-tiny-bpe', { validation: join(quickstartDataPath(), 'validation') });
  const model = defaultTrain('quickstart', tokenized, MODEL, { train_batch_size: 8, num_train_steps: 20, learning_rate: 3e-3, mp: 'p=f32,c=f32' }, { compilationCacheDir: join(dir, 'jax-cache') });
  const outputs = await runSteps([model]);
  const base = { model_path: join(outputs.get(model) as string, 'hf'), model: MODEL, cache_path: outputs.get(tokenized) as string, component_name: 'quickstart', compilation_cache_dir: join(dir, 'jax-cache') };
  const servedWall: number[] = [];
  const servedReady: number[] = [];
  const servedRate: number[] = [];
  const levanterWall: number[] = [];
  let tokens = 0;
  let losses = '';
  for (let i = 0; i < RUNS; i += 1) {
    const signal = new AbortController().signal;
    const client = createLocalClient({ logger: quiet });
    await withClient(client, async () => {
      let started = performance.now();
      await evaluateServed({ ...base, evaluation_path: join(dir, `served-${i}`) }, { signal }, { write: silent });
      servedWall.push((performance.now() - started) / 1000);
      const report = JSON.parse(await readFile(join(dir, `served-${i}`, 'served_eval.json'), 'utf8')) as ServedEvalReport;
      servedReady.push(report.ready_seconds);
      servedRate.push(report.tokens_per_second);
      tokens = report.tokens;
      started = performance.now();
      const levanter: EvalResults = await evaluateLevanter({ ...base, evaluation_path: join(dir, `levanter-${i}`) }, { signal }, { write: silent });
      levanterWall.push((performance.now() - started) / 1000);
      losses = `loss served ${report.loss.toFixed(7)} / eval_lm ${(levanter.results['validation']?.['loss,none'] as number).toFixed(7)}`;
    });
    await client.close();
  }
  process.stdout.write(
    `served-eval: the whole quickstart validation split (${tokens} scored tokens, seq_len 64, batch 8), ${RUNS} runs each, alternating (load average ${loadavg()[0]!.toFixed(1)}, ${availableParallelism()} cores):\n` +
      `  served eval step   median ${median(servedWall).toFixed(1)} s = ${(tokens / median(servedWall)).toFixed(0)} tokens/s end to end  [${fmt(servedWall)}]\n` +
      `    to ready line    median ${median(servedReady).toFixed(1)} s  [${fmt(servedReady)}]; streaming median ${median(servedRate).toFixed(0)} tokens/s  [${servedRate.map((x) => x.toFixed(0)).join(', ')}]\n` +
      `  Levanter eval_lm   median ${median(levanterWall).toFixed(1)} s = ${(tokens / median(levanterWall)).toFixed(0)} tokens/s end to end  [${fmt(levanterWall)}]\n` +
      `  ${losses}\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
