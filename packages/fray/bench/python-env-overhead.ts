// Warm-path cost of a job's Python environment: ensurePythonEnv on an environment that exists (hash the lock,
// one access() of the marker), and local submit → wait of a trivial binary job with and without a pythonEnv.
// Run: node --conditions=@marin/source --import tsx bench/python-env-overhead.ts (prints figures; asserts nothing).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PYTHON_ENV_MARKER, ensurePythonEnv, pythonEnvDir, pythonEnvKey } from '@marin/rigging';
import { Entrypoint, PythonEnvSpec, createLocalClient, silentLogger } from '@marin/fray';

const ROUNDS = Number(process.env['FRAY_BENCH_ROUNDS'] ?? '200');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function time(rounds: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

function report(label: string, samples: number[]): void {
  console.log(`${label.padEnd(52)} p50 ${percentile(samples, 50).toFixed(3)} ms   p90 ${percentile(samples, 90).toFixed(3)} ms   (n=${samples.length})`);
}

const dir = await mkdtemp(join(tmpdir(), 'fray-pyenv-bench-'));
try {
  const cacheDir = join(dir, 'envs');
  const small = 'six==1.17.0\n';
  // A real-sized lock (about 200 pins) when the pipeline's is present; the hash is the only size-dependent part.
  const large = await readFile(new URL('../../pipeline/python/levanter.lock', import.meta.url), 'utf8').catch(() => small.repeat(200));
  await ensurePythonEnv({ lock: small, cacheDir });
  report('ensurePythonEnv, warm, 1-pin lock', await time(ROUNDS, () => ensurePythonEnv({ lock: small, cacheDir })));
  // The large lock's environment is never built: a marker alone is what the warm path looks at.
  const fakeDir = join(dir, 'fake');
  const largeDir = pythonEnvDir(fakeDir, '3.11', pythonEnvKey(large, '3.11'));
  await mkdir(largeDir, { recursive: true });
  await writeFile(join(largeDir, PYTHON_ENV_MARKER), '{}');
  report(`ensurePythonEnv, warm, ${large.split('\n').length}-line lock`, await time(ROUNDS, () => ensurePythonEnv({ lock: large, cacheDir: fakeDir })));

  await using client = createLocalClient({ logger: silentLogger, pythonEnvCacheDir: cacheDir });
  const pythonEnv = PythonEnvSpec.fromLock(small);
  const ep = Entrypoint.fromBinary('true');
  let n = 0;
  const rounds = Math.min(ROUNDS, 50);
  await time(5, async () => (await client.submit({ name: `warm-${n++}`, entrypoint: ep })).wait());
  // Alternating rounds, so machine load hits both sides alike.
  const plain: number[] = [];
  const withEnv: number[] = [];
  for (let i = 0; i < rounds; i++) {
    plain.push(...(await time(1, async () => (await client.submit({ name: `plain-${n++}`, entrypoint: ep })).wait())));
    withEnv.push(...(await time(1, async () => (await client.submit({ name: `py-${n++}`, entrypoint: ep, pythonEnv })).wait())));
  }
  report('local job `true`, no pythonEnv', plain);
  report('local job `true`, warm pythonEnv', withEnv);
  console.log(`warm pythonEnv overhead per job start (p50 difference): ${(percentile(withEnv, 50) - percentile(plain, 50)).toFixed(2)} ms`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
