// experiments/hello_world_artifacts.js: plans by default, builds with --run, a rerun skips, and Python Marin
// (marin-core 0.2.227, its `marin.execution.lazy.resolve`) loads the records on the same prefix without rebuilding.
import { spawn } from 'node:child_process';
import { access, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonEnvCacheDir, pythonEnvKey } from '@marin/rigging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXPERIMENTS_DIR, REPO_ROOT, runNode } from './helpers/run-process.js';
import type { Outcome } from './helpers/run-process.js';

const V = '2026.11.25';
const run = (args: string[]) => runNode(['hello_world_artifacts.js', ...args]);

async function marinCorePython(): Promise<string> {
  const dir = join(pythonEnvCacheDir(), `py3.12-${pythonEnvKey(await readFile(join(REPO_ROOT, 'packages/executor/python/marin-core.lock')), '3.12')}`);
  try {
    await access(join(dir, '.marin-env.json'));
  } catch {
    throw new Error('the marin-core Python environment is missing; create it from the repository root with: node tools/python-env/python-env.mjs packages/executor/python/marin-core.lock --python 3.12');
  }
  return join(dir, 'bin', 'python');
}

async function runPython(script: string, args: string[], prefix: string): Promise<Outcome> {
  const python = await marinCorePython();
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(EXPERIMENTS_DIR, 'test/python', script), ...args], {
      env: { ...process.env, MARIN_PREFIX: prefix, JAX_PLATFORMS: 'cpu', PYTHONPATH: join(EXPERIMENTS_DIR, 'test/python') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('experiments/hello_world_artifacts.js', () => {
  let prefix = '';
  beforeEach(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'hello-artifacts-'));
  });
  afterEach(async () => {
    await rm(prefix, { recursive: true, force: true });
  });

  it('plans without writing, builds with --run, skips on a rerun, and Python resolves its records', async () => {
    const plan = await run(['--version', V, '--prefix', prefix]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/run\s+hello_world\/data@2026\.11\.25/);
    await expect(access(join(prefix, 'hello_world'))).rejects.toThrow();

    const first = await run(['--version', V, '--prefix', prefix, '--run']);
    expect(first.code, first.stderr).toBe(0);
    const stats = join(prefix, 'hello_world/stats', V);
    const record = JSON.parse(await readFile(join(stats, '.artifact.json'), 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({ name: 'hello_world/stats', version: V, result_type: 'hello_world_artifacts.HelloStats', result: { sum: 4950, min: 0, max: 99 }, deps: ['hello_world/data@2026.11.25'] });
    expect(await readFile(join(stats, '.executor_status'), 'utf8')).toBe('SUCCESS');
    const mtime = (await stat(join(stats, '.artifact.json'))).mtimeMs;

    const second = await run(['--version', V, '--prefix', prefix, '--run']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/skip\s+hello_world\/stats@2026\.11\.25/);
    expect(second.stdout).toMatch(/prune\s+hello_world\/data@2026\.11\.25/);
    expect((await stat(join(stats, '.artifact.json'))).mtimeMs).toBe(mtime);

    const py = await runPython('resolve_hello_world.py', [V], prefix);
    expect(py.code, py.stderr.slice(-3000)).toBe(0);
    const loaded = JSON.parse(py.stdout) as Record<string, unknown>;
    expect(loaded).toMatchObject({ sum: 4950, min: 0, max: 99, path: stats, fingerprint: record['fingerprint'], expected: record['fingerprint'] });
    await expect(access(join(prefix, 'py-runs.log'))).rejects.toThrow();
    expect((await stat(join(stats, '.artifact.json'))).mtimeMs).toBe(mtime);
  }, 180_000);

  it('refuses a missing --version and an override no artifact uses, with one error line each', async () => {
    const missing = await run(['--prefix', prefix]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('[EXECUTOR_INVALID_ARGUMENT]');
    const unused = await run(['--version', V, '--prefix', prefix, '--override', 'hello_world/typo=2026.11.26']);
    expect(unused.code).toBe(2);
    expect(unused.stderr).toContain('[EXECUTOR_INVALID_ARGUMENT]');
    const bad = await run(['--version', 'v1', '--prefix', prefix]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('[EXECUTOR_INVALID_VERSION]');
    await expect(access(join(prefix, 'hello_world'))).rejects.toThrow();
  }, 60_000);
});
