/**
 * What the Fray launch adds around a Levanter run on a data mixture (3 components and 2 validation
 * sets): the time from starting a run to Levanter's first log line (a `levanter.*` logger, after Python imports and JAX start), through the local Fray backend
 * (`pythonEnv` resolution on a warm environment cache, process group, line capture) versus spawning the
 * same command directly with the environment's interpreter. Each run is stopped at that line. The
 * environment must already be built (`node tools/python-env/python-env.mjs packages/pipeline/python/levanter.lock`).
 *
 * Run: node --conditions=@marin/source --import tsx packages/pipeline/bench/levanter-launch.ts [runs]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Entrypoint, ResourceConfig, createEnvironment, createLocalClient } from '@marin/fray';
import { ensurePythonEnv } from '@marin/rigging';
import { levanterJobScriptPath, levanterLockPath } from '../src/assets.js';
import { levanterPythonEnv } from '../src/levanter/levanter-runtime.js';
import { toLevanterYaml } from '../src/levanter/levanter-yaml.js';
import { levanterMixtureSection } from '../src/steps/train/mixture-data.js';

const RUNS = Number(process.argv[2] ?? 3);
const FIRST_LINE = /levanter\.[a-z_]+/;

const dir = await mkdtemp(join(tmpdir(), 'levanter-launch-'));
const env = { JAX_PLATFORMS: 'cpu', WANDB_MODE: 'disabled', HF_HUB_OFFLINE: '1', MARIN_PREFIX: join(dir, 'marin') };
const configPath = join(dir, 'config.yaml');
// A complete config whose caches do not exist: Levanter starts, logs its config, then stops on a cache.
// Its data section is what a train step on a mixture of 3 components with 2 validation sets writes
// (`levanterMixtureSection`): 5 cached components, the validation sets at weight 0 under their tag.
const cache = (name: string) => join(dir, 'no-cache', name);
const data = levanterMixtureSection(
  {
    components: {
      web: { cache_path: cache('web'), tags: [] },
      code: { cache_path: cache('code'), tags: [] },
      books: { cache_path: cache('books'), tags: [] },
      'offline/gazetteer': { cache_path: cache('gazetteer'), tags: ['offline'] },
      'offline/chronicle': { cache_path: cache('chronicle'), tags: ['offline'] },
    },
    train_weights: { web: 0.5, code: 0.3, books: 0.2, 'offline/gazetteer': 0, 'offline/chronicle': 0 },
    shuffle: true,
    permutation_type: 'feistel',
    mixture_block_size: null,
    stop_strategy: null,
  },
  'gpt2',
  { 'offline/gazetteer': { trainTokens: 0, hasValidation: true }, 'offline/chronicle': { trainTokens: 0, hasValidation: true } },
);
await writeFile(
  configPath,
  toLevanterYaml({
    data,
    model: { type: 'llama', max_seq_len: 64, hidden_dim: 32, intermediate_dim: 128, num_heads: 2, num_kv_heads: 2, num_layers: 2 },
    trainer: { id: 'bench', tracker: { type: 'json_logger' }, log_dir: join(dir, 'logs'), require_accelerator: false, train_batch_size: 8, num_train_steps: 1 },
  }),
);
const args = ['-m', 'levanter.main.train_lm', '--config_path', configPath];
const python = (await ensurePythonEnv({ lockPath: levanterLockPath() })).python;

async function direct(): Promise<number> {
  const started = performance.now();
  const child = spawn(python, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const seconds = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => reject(new Error('levanter exited before its first log line')));
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        if (FIRST_LINE.test(line)) resolve((performance.now() - started) / 1000);
      });
    }
  });
  child.removeAllListeners('close');
  process.kill(-(child.pid as number), 'SIGKILL');
  return seconds;
}

async function viaFray(wrapped = false): Promise<number> {
  let resolveFirst: (s: number) => void = () => undefined;
  const first = new Promise<number>((resolve) => (resolveFirst = resolve));
  let started = 0;
  const client = createLocalClient({
    killGraceMs: 0,
    logger: {
      info: (line) => {
        if (!line.includes('[python-env]') && FIRST_LINE.test(line)) resolveFirst((performance.now() - started) / 1000);
      },
      warn: () => undefined,
    },
  });
  started = performance.now();
  const job = await client.submit({
    name: `levanter-launch-${Date.now()}`,
    // `wrapped`: as the train step runs it, through the shipped levanter_job.py (output to a file, metrics
    // file, and here --echo so its first line is seen).
    entrypoint: Entrypoint.fromBinary(
      'python',
      wrapped ? [levanterJobScriptPath(), '--output-log', join(dir, `out-${Date.now()}.log`), '--metrics', join(dir, `metrics-${Date.now()}.jsonl`), '--echo', '--', ...args] : args,
    ),
    resources: new ResourceConfig(),
    environment: createEnvironment({ envVars: env }),
    pythonEnv: levanterPythonEnv(),
  });
  const seconds = await first;
  await job.terminate();
  await client.close();
  return seconds;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const directTimes: number[] = [];
const frayTimes: number[] = [];
const wrappedTimes: number[] = [];
try {
  await direct(); // warms the OS file cache of the environment, so neither side pays for it
  for (let i = 0; i < RUNS; i += 1) {
    directTimes.push(await direct());
    frayTimes.push(await viaFray());
    wrappedTimes.push(await viaFray(true));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
const fmt = (xs: number[]): string => xs.map((x) => x.toFixed(2)).join(', ');
process.stdout.write(
  `levanter-launch: start to Levanter's first log line over ${RUNS} runs (warm environment; a mixture of 3 components and 2 validation sets; load average ${loadavg()[0]!.toFixed(1)}, ${availableParallelism()} cores):\n` +
    `  direct spawn   median ${median(directTimes).toFixed(2)} s  [${fmt(directTimes)}]\n` +
    `  Fray local job median ${median(frayTimes).toFixed(2)} s  [${fmt(frayTimes)}]\n` +
    `  Fray local job through levanter_job.py (as train steps run) median ${median(wrappedTimes).toFixed(2)} s  [${fmt(wrappedTimes)}]\n` +
    `  Fray overhead  ${((median(frayTimes) - median(directTimes)) * 1000).toFixed(0)} ms; with levanter_job.py ${((median(wrappedTimes) - median(directTimes)) * 1000).toFixed(0)} ms (median differences)\n`,
);
