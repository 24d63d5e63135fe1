/**
 * Worker benchmark: attempt start-to-exit latency, a task through Reconcile on a real daemon,
 * bundle creation and caching, and the setup cache (cold install vs a cached second task). Prints
 * figures; asserts nothing.
 *
 * Run alone: `node --conditions=@marin/source --import tsx bench/worker.bench.ts`
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BundleCache } from '../src/worker/bundle-cache.js';
import { createBundle } from '../src/bundle/create-bundle.js';
import { EnvironmentCache } from '../src/worker/environment-cache.js';
import { buildSetupCommands } from '../src/core/setup-commands.js';
import { TaskState } from '../src/gen/iris/v1/types.js';
import type { RunTaskRequest } from '../src/gen/iris/v1/types.js';
import type { AttemptObservation } from '../src/gen/iris/v1/worker.js';
import { AttemptProcess } from '../src/worker/attempt-process.js';
import { AttemptTable } from '../src/worker/attempt-table.js';
import { startWorker } from '../src/worker/worker-daemon.js';
import { runSpec, runWithSpec, startFakeController } from '../test/helpers/worker-fake-controller.js';

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

function line(name: string, figure: string): void {
  process.stdout.write(`${name.padEnd(58)} ${figure}\n`);
}

/** The same command spawned directly (no supervisor): the baseline the supervisor's cost is measured against. */
async function directSpawnLatency(dir: string, argv: string[], n: number): Promise<{ startMs: number; exitMs: number }> {
  const starts: number[] = [];
  const exits: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const t0 = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { cwd: dir, env: { PATH: process.env['PATH'] ?? '' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise((r) => child.once('spawn', r));
    starts.push(performance.now() - t0);
    child.stdout.resume();
    child.stderr.resume();
    await new Promise((r) => child.once('close', r));
    exits.push(performance.now() - t0);
  }
  return { startMs: median(starts), exitMs: median(exits) };
}

/** Spawn call to the task process existing, under its supervisor. */
async function supervisedStartLatency(dir: string, argv: string[], n: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const [ms, proc] = await time(() => AttemptProcess.spawn({ argv, cwd: dir, env: { PATH: process.env['PATH'] ?? '' }, onOutput: () => undefined }));
    samples.push(ms);
    await proc.exited;
  }
  return median(samples);
}

async function spawnLatency(dir: string, argv: string[], n: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const [ms] = await time(async () => (await AttemptProcess.spawn({ argv, cwd: dir, env: { PATH: process.env['PATH'] ?? '' }, onOutput: () => undefined })).exited);
    samples.push(ms);
  }
  return median(samples);
}

async function reconcileLatency(dir: string, n: number): Promise<number> {
  await using controller = await startFakeController();
  await using worker = await startWorker({ controllerAddress: controller.address, workerId: 'bench', cacheDir: join(dir, 'daemon'), registerRetryInitialMs: 20, logFlushIntervalMs: 20 });
  await worker.waitForRegistration();
  const samples: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const spec = runSpec(['true'], { taskIndex: i, taskId: `/alice/job/${i}` });
    const [ms] = await time(() =>
      controller.reconcileUntil('bench', [runWithSpec(spec)], (o) => o[0]?.state === TaskState.TASK_STATE_SUCCEEDED, { intervalMs: 5 }),
    );
    samples.push(ms);
  }
  return median(samples);
}

async function bundleFigures(dir: string): Promise<void> {
  const root = join(dir, 'ws');
  for (let i = 0; i < 2000; i += 1) await (async () => {
    await mkdir(join(root, `pkg${i % 20}`, 'src'), { recursive: true });
    await writeFile(join(root, `pkg${i % 20}`, 'src', `file${i}.ts`), `export const v${i} = ${JSON.stringify('x'.repeat(500 + (i % 1500)))};\n`);
  })();
  const [createMs, bundle] = await time(() => createBundle({ root }));
  line('createBundle, 2,000 files', `${createMs.toFixed(0)} ms, ${(bundle.totalBytes / 1e6).toFixed(1)} MB -> ${(bundle.archive.length / 1e6).toFixed(2)} MB gz`);
  const cache = new BundleCache({ dir: join(dir, 'bundles'), fetch: async () => bundle.archive });
  const [coldMs, lease] = await time(() => cache.acquire(bundle.id));
  await lease.release();
  const [warmMs, again] = await time(() => cache.acquire(bundle.id));
  await again.release();
  line('bundle cache: miss (verify + extract) / hit', `${coldMs.toFixed(0)} ms / ${warmMs.toFixed(2)} ms`);
}

async function setupFigures(dir: string): Promise<void> {
  const make = async (name: string, code: string): Promise<string> => {
    const root = join(dir, name);
    await mkdir(join(root, 'local-dep'), { recursive: true });
    await writeFile(join(root, 'local-dep/package.json'), JSON.stringify({ name: 'local-dep', version: '1.0.0', bin: { 'local-dep': 'cli.js' } }));
    await writeFile(join(root, 'local-dep/cli.js'), '#!/usr/bin/env node\n');
    await chmod(join(root, 'local-dep/cli.js'), 0o755);
    await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'ws', version: '1.0.0', private: true, dependencies: { 'local-dep': 'file:./local-dep' } }));
    await writeFile(join(root, 'main.js'), code);
    return root;
  };
  const cache = new EnvironmentCache({ cacheDir: join(dir, 'env-cache') });
  const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? dir };
  const v1 = await make('v1', '1');
  const v2 = await make('v2', '2');
  const prepare = (tree: string, id: string, workdir: string) =>
    cache.prepareWorkdir({ bundleId: id, bundleTree: tree, setupCommands: buildSetupCommands({ bundleRoot: tree }), workdir: join(dir, workdir), env, onLine: () => undefined });
  const [coldMs] = await time(() => prepare(v1, 'a'.repeat(64), 'w1'));
  const [codeOnlyMs] = await time(() => prepare(v2, 'b'.repeat(64), 'w2'));
  const [sameMs] = await time(() => prepare(v2, 'b'.repeat(64), 'w3'));
  line('setup: cold npm install + hook', `${coldMs.toFixed(0)} ms`);
  line('setup: code-only change (deps cached, hook re-run)', `${codeOnlyMs.toFixed(0)} ms`);
  line('setup: same bundle again (both layers cached)', `${sameMs.toFixed(0)} ms`);
}

function tableThroughput(n: number, rounds: number): number {
  const fake = (spec: RunTaskRequest) => ({
    uid: spec.attemptUid,
    live: true,
    start: () => undefined,
    stop: async () => undefined,
    observe: (): AttemptObservation => ({ attemptUid: spec.attemptUid, state: TaskState.TASK_STATE_RUNNING, exitCode: 0, error: '', startedAtMs: 0, finishedAtMs: 0, ports: {} }),
  });
  const table = new AttemptTable({ create: fake });
  const desired = Array.from({ length: n }, (_, i) => runWithSpec(runSpec(['true'], { taskIndex: i })));
  table.reconcile(desired);
  const start = performance.now();
  for (let r = 0; r < rounds; r += 1) table.reconcile(desired);
  return (performance.now() - start) / rounds;
}

const dir = await mkdtemp(join(tmpdir(), 'iris-worker-bench-'));
try {
  line('nproc', String(availableParallelism()));
  line('attempt start->exit, `true` (median of 20)', `${(await spawnLatency(dir, ['true'], 20)).toFixed(1)} ms`);
  const direct = await directSpawnLatency(dir, ['true'], 20);
  line('  same, spawned directly without a supervisor', `${direct.exitMs.toFixed(1)} ms`);
  line('task start under its supervisor, `sleep 0` (median of 20)', `${(await supervisedStartLatency(dir, ['sleep', '0'], 20)).toFixed(1)} ms`);
  line('  same, spawned directly', `${direct.startMs.toFixed(1)} ms`);
  line('attempt start->exit, `node -e 0` (median of 10)', `${(await spawnLatency(dir, [process.execPath, '-e', '0'], 10)).toFixed(1)} ms`);
  line('Reconcile dispatch -> SUCCEEDED observed, `true` (median of 10)', `${(await reconcileLatency(dir, 10)).toFixed(1)} ms`);
  line('AttemptTable.reconcile, 1,000 desired attempts', `${tableThroughput(1000, 50).toFixed(2)} ms per call`);
  await bundleFigures(dir);
  await setupFigures(dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
