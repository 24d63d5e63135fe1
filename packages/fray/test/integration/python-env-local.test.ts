import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PYTHON_ENV_MARKER } from '@marin/rigging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Entrypoint, JobFailed, PythonEnvSpec, createLocalClient, waitAll } from '@marin/fray';
import type { FrayLogger, JobHandle } from '@marin/fray';

// Real uv against PyPI: one small pure-Python package pinned exactly.
const SIX_LOCK = 'six==1.17.0\n';
const quiet: FrayLogger = { info: () => undefined, warn: () => undefined };
const PRINT_SIX = Entrypoint.fromBinary('python', ['-c', 'import os, sys, six; print("six", six.__version__); print("prefix", sys.prefix); print("venv", os.environ["VIRTUAL_ENV"])']);

let dir: string;
let cacheDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fray-pyenv-local-'));
  cacheDir = join(dir, 'python-envs');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Environment directories in the cache (no leases, no staging leftovers). */
async function envDirs(): Promise<string[]> {
  try {
    return (await readdir(cacheDir)).filter((n) => !n.endsWith('.lock') && !n.includes('.tmp-')).sort();
  } catch {
    return [];
  }
}

/** `key value` lines the job printed. */
async function printed(job: JobHandle): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const line of await job.logs()) {
    const m = /^(six|prefix|venv) (.+)$/.exec(line);
    if (m !== null) out[m[1] as string] = m[2] as string;
  }
  return out;
}

const buildLines = async (job: JobHandle): Promise<string[]> => (await job.logs()).filter((l) => l.startsWith('[python-env] building Python'));
const reuseLines = async (job: JobHandle): Promise<string[]> => (await job.logs()).filter((l) => l.startsWith('[python-env] reusing Python'));

describe('local backend: Python environments', () => {
  it('runs a job in the environment of its lock; a second job with the same lock reuses it', async () => {
    await using client = createLocalClient({ logger: quiet, pythonEnvCacheDir: cacheDir });
    const pythonEnv = PythonEnvSpec.fromLock(SIX_LOCK, { name: 'six.lock' });
    const first = await client.submit({ name: 'six-1', entrypoint: PRINT_SIX, pythonEnv });
    expect(await first.wait()).toBe('succeeded');
    const [envName] = await envDirs();
    expect(envName).toBeDefined();
    const envDir = join(cacheDir, envName as string);
    expect(await printed(first)).toEqual({ six: '1.17.0', prefix: envDir, venv: envDir });
    expect(await buildLines(first)).toHaveLength(1);

    const second = await client.submit({ name: 'six-2', entrypoint: PRINT_SIX, pythonEnv });
    expect(await second.wait()).toBe('succeeded');
    expect(await printed(second)).toEqual({ six: '1.17.0', prefix: envDir, venv: envDir });
    expect(await buildLines(second)).toHaveLength(0);
    expect(await reuseLines(second)).toHaveLength(1);
    expect(await envDirs()).toEqual([envName]);
  });

  it('builds once for concurrent jobs with the same lock, and anew for a changed lock', async () => {
    await using client = createLocalClient({ logger: quiet, pythonEnvCacheDir: cacheDir });
    const pythonEnv = PythonEnvSpec.fromLock(SIX_LOCK, { name: 'six.lock' });
    const jobs = await Promise.all(['a', 'b', 'c'].map((n) => client.submit({ name: `same-${n}`, entrypoint: PRINT_SIX, pythonEnv })));
    expect(await waitAll(jobs)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    const builds = await Promise.all(jobs.map(buildLines));
    expect(builds.flat()).toHaveLength(1);
    expect(await envDirs()).toHaveLength(1);
    expect(new Set(await Promise.all(jobs.map(async (j) => (await printed(j))['prefix']))).size).toBe(1);

    const changed = PythonEnvSpec.fromLock(`# a changed lock\n${SIX_LOCK}`, { name: 'six-v2.lock' });
    const third = await client.submit({ name: 'changed', entrypoint: PRINT_SIX, pythonEnv: changed });
    expect(await third.wait()).toBe('succeeded');
    expect(await buildLines(third)).toHaveLength(1);
    const dirs = await envDirs();
    expect(dirs).toHaveLength(2);
    expect(dirs.map((d) => join(cacheDir, d))).toContain((await printed(third))['prefix']);
  });

  it('fails the job with FRAY_JOB_FAILED and uv\'s error text when the lock cannot be installed', async () => {
    await using client = createLocalClient({ logger: quiet, pythonEnvCacheDir: cacheDir });
    const job = await client.submit({
      name: 'bad-lock',
      entrypoint: Entrypoint.fromBinary('python', ['-c', 'print("must not run")']),
      pythonEnv: PythonEnvSpec.fromLock('six==99.0.0\n', { name: 'bad.lock' }),
    });
    const err = (await job.wait().catch((e: unknown) => e)) as JobFailed;
    expect(err).toBeInstanceOf(JobFailed);
    expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED', failedStatus: 'failed', jobId: job.jobId });
    const cause = err.cause as { code: string; details: { errorText: string; lock: string }; cause: unknown };
    expect(cause).toMatchObject({ code: 'FRAY_JOB_FAILED', details: { lock: 'bad.lock' } });
    expect(cause.details.errorText).toContain('six==99.0.0');
    expect(cause.cause).toMatchObject({ code: 'RIGGING_ENV_BUILD_FAILED' });
    expect(err.message).toContain(cause.details.errorText);
    const logs = await job.logs();
    expect(logs.some((l) => l.includes('six==99.0.0'))).toBe(true);
    expect(logs).not.toContain('must not run');
    expect(await job.status()).toBe('failed');
    expect(await envDirs()).toEqual([]);
  });

  it('stops a job terminated while its environment builds', async () => {
    await using client = createLocalClient({ logger: quiet, pythonEnvCacheDir: cacheDir });
    const job = await client.submit({ name: 'cancel', entrypoint: PRINT_SIX, pythonEnv: PythonEnvSpec.fromLock(SIX_LOCK) });
    // Stop it once uv runs: nothing half-built may remain (a build that won the race is complete).
    while ((await buildLines(job)).length === 0) await new Promise((r) => setTimeout(r, 10));
    await job.terminate();
    expect(await job.wait({ raiseOnFailure: false })).toBe('stopped');
    for (const name of await envDirs()) await access(join(cacheDir, name, PYTHON_ENV_MARKER));
    expect((await readdir(cacheDir).catch(() => [])).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });
});
