import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster } from '@marin/iris';
import type { LocalClusterHandle } from '@marin/iris';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Entrypoint, JobFailed, PythonEnvSpec, createIrisBackend, waitAll } from '@marin/fray';
import type { FrayLogger, JobHandle } from '@marin/fray';

// Real uv against PyPI, built by the cluster's worker: one small pure-Python package pinned exactly.
const SIX_LOCK = 'six==1.17.0\n';
const quiet: FrayLogger = { info: () => undefined, warn: () => undefined };
const PRINT_SIX = Entrypoint.fromBinary('python', ['-c', 'import os, sys, six; print("six", six.__version__); print("prefix", sys.prefix); print("venv", os.environ["VIRTUAL_ENV"])']);

let cluster: LocalClusterHandle;
let cacheRoot: string;
beforeAll(async () => {
  cacheRoot = await mkdtemp(join(tmpdir(), 'fray-pyenv-iris-'));
  cluster = await startLocalCluster({ workers: 1, cpuMillicores: 4000, termTimeoutMs: 1000, cacheDir: cacheRoot });
});
afterAll(async () => {
  await cluster.close();
  await rm(cacheRoot, { recursive: true, force: true });
});

/** A unique job name per test run: the cluster outlives single tests. */
function name(base: string): string {
  return `${base}-${Math.random().toString(16).slice(2, 8)}`;
}

/** The one worker's environment directories (no leases, no staging leftovers). */
async function envDirs(): Promise<string[]> {
  try {
    return (await readdir(join(cacheRoot, 'worker-0', 'python-envs'))).filter((n) => !n.endsWith('.lock') && !n.includes('.tmp-')).sort();
  } catch {
    return [];
  }
}

async function printed(job: JobHandle): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const line of await job.logs()) {
    const m = /^(six|prefix|venv) (.+)$/.exec(line);
    if (m !== null) out[m[1] as string] = m[2] as string;
  }
  return out;
}

const buildLines = async (job: JobHandle): Promise<string[]> => (await job.logs()).filter((l) => l.startsWith('building Python'));
const reuseLines = async (job: JobHandle): Promise<string[]> => (await job.logs()).filter((l) => l.startsWith('[iris] reusing Python'));

describe('Iris backend: Python environments', () => {
  it('ships the lock to the worker, which builds it once for concurrent jobs and reuses it for later ones', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    // A lock of its own (the comment changes the hash), so other tests' environments do not interfere.
    const pythonEnv = PythonEnvSpec.fromLock(`# iris shared\n${SIX_LOCK}`, { name: 'six.lock' });
    const before = await envDirs();
    const jobs = await Promise.all(['a', 'b'].map((n) => fray.submit({ name: name(`six-${n}`), entrypoint: PRINT_SIX, pythonEnv })));
    expect(await waitAll(jobs)).toEqual(['succeeded', 'succeeded']);
    const added = (await envDirs()).filter((d) => !before.includes(d));
    expect(added).toHaveLength(1);
    const envDir = join(cacheRoot, 'worker-0', 'python-envs', added[0] as string);
    for (const job of jobs) expect(await printed(job)).toEqual({ six: '1.17.0', prefix: envDir, venv: envDir });
    expect((await Promise.all(jobs.map(buildLines))).flat()).toHaveLength(1);

    const later = await fray.submit({ name: name('six-later'), entrypoint: PRINT_SIX, pythonEnv });
    expect(await later.wait()).toBe('succeeded');
    expect(await buildLines(later)).toHaveLength(0);
    expect(await reuseLines(later)).toHaveLength(1);
    expect(await printed(later)).toMatchObject({ six: '1.17.0', prefix: envDir });

    const changed = await fray.submit({ name: name('six-changed'), entrypoint: PRINT_SIX, pythonEnv: PythonEnvSpec.fromLock(`# iris changed\n${SIX_LOCK}`) });
    expect(await changed.wait()).toBe('succeeded');
    expect(await buildLines(changed)).toHaveLength(1);
    expect((await envDirs()).filter((d) => !before.includes(d))).toHaveLength(2);
  });

  it('fails a job whose lock does not install with FRAY_JOB_FAILED and uv\'s error text, without preemption retries', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    await using iris = cluster.client();
    const job = await fray.submit({
      name: name('bad-lock'),
      entrypoint: Entrypoint.fromBinary('python', ['-c', 'print("must not run")']),
      pythonEnv: PythonEnvSpec.fromLock('six==99.0.0\n', { name: 'bad.lock' }),
      maxRetriesFailure: 0,
      maxRetriesPreemption: 5,
    });
    const err = (await job.wait().catch((e: unknown) => e)) as JobFailed;
    expect(err).toBeInstanceOf(JobFailed);
    expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED', failedStatus: 'failed', cause: { details: { state: 'FAILED' } } });
    expect(err.message).toContain('six==99.0.0');
    const info = await iris.getJob(job.jobId);
    expect(info).toMatchObject({ state: 'FAILED', failureCount: 1, preemptionCount: 0 });
    const logs = await job.logs();
    expect(logs.some((l) => l.includes('six==99.0.0'))).toBe(true);
    expect(logs).not.toContain('must not run');
  });
});
