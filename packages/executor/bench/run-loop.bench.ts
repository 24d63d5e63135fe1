import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = join(PACKAGE_DIR, 'bench', 'fixtures', 'wide-dag.js');
const SOURCE_FLAGS = ['--conditions=@marin/source', '--import', 'tsx'];

function runEntry(
  args: string[],
  env: Record<string, string>,
  nodeFlags: readonly string[] = SOURCE_FLAGS,
): Promise<{ ms: number; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...nodeFlags, ENTRY, ...args], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, CI: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('exit', (code) => resolve({ ms: performance.now() - t0, code, stderr }));
  });
}

function runTook(stderr: string): string {
  return /Executor run took ([\d.]+)s/.exec(stderr)?.[1] ?? '?';
}

/**
 * Run-loop benchmarks, each a whole spawned process (`node --conditions=@marin/source --import tsx`,
 * plus plain `node` on the built dist/ when it exists):
 * (b) a no-op re-run of an already-successful 1,000-step DAG on a local prefix (target < 3 s);
 * (c) 200 independent steps sleeping 100 ms each at --max-concurrent 50 (target < 1.5 s).
 */
export async function benchRunLoop(): Promise<void> {
  console.log(`executor run loop (nproc=${cpus().length})`);
  const prefix = await mkdtemp(join(tmpdir(), 'executor-bench-'));
  try {
    const empty = await runEntry(['--prefix', prefix, '--help'], { BENCH_STEPS: '1' });
    console.log(`  process start-up (node + tsx, --help):             ${(empty.ms / 1000).toFixed(2)} s`);

    const cold = await runEntry(['--prefix', join(prefix, 'dag')], { BENCH_STEPS: '1000' });
    if (cold.code !== 0) throw new Error(`cold run failed:\n${cold.stderr}`);
    console.log(`  1,000-step DAG, first run (all steps run):          ${(cold.ms / 1000).toFixed(2)} s (run ${runTook(cold.stderr)} s)`);

    const warm = await runEntry(['--prefix', join(prefix, 'dag')], { BENCH_STEPS: '1000' });
    if (warm.code !== 0) throw new Error(`no-op re-run failed:\n${warm.stderr}`);
    console.log(`  (b) 1,000-step DAG, no-op re-run, whole process:    ${(warm.ms / 1000).toFixed(2)} s (run ${runTook(warm.stderr)} s; target < 3 s)`);

    if (existsSync(join(PACKAGE_DIR, 'dist', 'index.js'))) {
      const fromDist = await runEntry(['--prefix', join(prefix, 'dag')], { BENCH_STEPS: '1000' }, []);
      if (fromDist.code !== 0) throw new Error(`no-op re-run from dist failed:\n${fromDist.stderr}`);
      console.log(`  (b) same, from the built dist/ (plain node):       ${(fromDist.ms / 1000).toFixed(2)} s (run ${runTook(fromDist.stderr)} s)`);
    } else {
      console.log('  (b) from dist/: skipped, run `nx run-many -t build` first');
    }

    const sleepers = await runEntry(['--prefix', join(prefix, 'sleep'), '--max-concurrent', '50'], {
      BENCH_STEPS: '200',
      BENCH_SLEEP_MS: '100',
    });
    if (sleepers.code !== 0) throw new Error(`sleep run failed:\n${sleepers.stderr}`);
    console.log(
      `  (c) 200 x 100 ms independent steps, 50 concurrent:  run ${runTook(sleepers.stderr)} s (whole process ${(sleepers.ms / 1000).toFixed(2)} s; target < 1.5 s)`,
    );
  } finally {
    await rm(prefix, { recursive: true, force: true });
  }
}
