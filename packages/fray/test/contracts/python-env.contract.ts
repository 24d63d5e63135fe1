// Python environments (`pythonEnv`) as every backend runs them; run against the local backend, an embedded Iris
// cluster and a real Ray head. Real uv against PyPI: one small pure-Python package pinned exactly.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Entrypoint, JobFailed, PythonEnvSpec, waitAll } from '@marin/fray';
import type { Client, JobHandle } from '@marin/fray';

const SIX_LOCK = 'six==1.17.0\n';
const PRINT_SIX = Entrypoint.fromBinary('python', [
  '-c',
  'import os, sys, six; print("six", six.__version__); print("prefix", sys.prefix); print("venv", os.environ["VIRTUAL_ENV"]); print("path0", os.environ["PATH"].split(os.pathsep)[0])',
]);

/** How one backend is driven by the contract. */
export interface PythonEnvBackend {
  /** A fresh client per test. */
  open: () => Client;
  /** The directory where the (one) node that runs the jobs keeps environments. */
  envRoot: () => string;
  /** Whether a log line announces that this job built its environment. */
  isBuildLine: (line: string) => boolean;
  /** Whether a log line announces that this job found its environment already built. */
  isReuseLine: (line: string) => boolean;
}

function unique(base: string): string {
  return `${base}-${Math.random().toString(16).slice(2, 8)}`;
}

/** Registers the shared Python-environment behaviour for one backend. */
export function pythonEnvContract(backend: string, setup: PythonEnvBackend): void {
  /** Environment directories (no leases, no staging leftovers). */
  const envDirs = async (): Promise<string[]> => {
    try {
      return (await readdir(setup.envRoot())).filter((n) => !n.endsWith('.lock') && !n.includes('.tmp-')).sort();
    } catch {
      return [];
    }
  };
  /** `key value` lines the job printed. */
  const printed = async (job: JobHandle): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    for (const line of await job.logs()) {
      const m = /^(six|prefix|venv|path0) (.+)$/.exec(line);
      if (m !== null) out[m[1] as string] = m[2] as string;
    }
    return out;
  };
  const builds = async (job: JobHandle): Promise<number> => (await job.logs()).filter(setup.isBuildLine).length;
  const reuses = async (job: JobHandle): Promise<number> => (await job.logs()).filter(setup.isReuseLine).length;
  // A lock of its own per test (a comment changes the hash), so environments of other tests and runs do not count.
  const lockOf = (tag: string): PythonEnvSpec => PythonEnvSpec.fromLock(`# ${backend} ${unique(tag)}\n${SIX_LOCK}`, { name: 'six.lock' });

  describe(`Python environments (${backend})`, () => {
    it('runs a job with its lock\'s environment first on PATH, and a later job with the same lock reuses it', async () => {
      await using client = setup.open();
      const pythonEnv = lockOf('reuse');
      const before = await envDirs();
      const first = await client.submit({ name: unique('six-1'), entrypoint: PRINT_SIX, pythonEnv });
      expect(await first.wait()).toBe('succeeded');
      const added = (await envDirs()).filter((d) => !before.includes(d));
      expect(added).toHaveLength(1);
      const envDir = join(setup.envRoot(), added[0] as string);
      expect(await printed(first)).toEqual({ six: '1.17.0', prefix: envDir, venv: envDir, path0: join(envDir, 'bin') });
      expect(await builds(first)).toBe(1);

      const second = await client.submit({ name: unique('six-2'), entrypoint: PRINT_SIX, pythonEnv });
      expect(await second.wait()).toBe('succeeded');
      expect(await printed(second)).toEqual({ six: '1.17.0', prefix: envDir, venv: envDir, path0: join(envDir, 'bin') });
      expect(await builds(second)).toBe(0);
      expect(await reuses(second)).toBe(1);
      expect((await envDirs()).filter((d) => !before.includes(d))).toEqual(added);
    });

    it('builds once for concurrent jobs with the same lock, and anew for a changed lock', async () => {
      await using client = setup.open();
      const pythonEnv = lockOf('concurrent');
      const before = await envDirs();
      const jobs = await Promise.all(['a', 'b'].map((n) => client.submit({ name: unique(`same-${n}`), entrypoint: PRINT_SIX, pythonEnv })));
      expect(await waitAll(jobs)).toEqual(['succeeded', 'succeeded']);
      expect((await Promise.all(jobs.map(builds))).reduce((a, b) => a + b, 0)).toBe(1);
      const added = (await envDirs()).filter((d) => !before.includes(d));
      expect(added).toHaveLength(1);
      expect(new Set(await Promise.all(jobs.map(async (j) => (await printed(j))['prefix'])))).toEqual(new Set([join(setup.envRoot(), added[0] as string)]));

      const changed = await client.submit({ name: unique('changed'), entrypoint: PRINT_SIX, pythonEnv: lockOf('changed') });
      expect(await changed.wait()).toBe('succeeded');
      expect(await builds(changed)).toBe(1);
      const now = (await envDirs()).filter((d) => !before.includes(d));
      expect(now).toHaveLength(2);
      expect(now.map((d) => join(setup.envRoot(), d))).toContain((await printed(changed))['prefix']);
    });

    it('fails a job whose lock cannot install with FRAY_JOB_FAILED carrying uv\'s error text, without running it', async () => {
      await using client = setup.open();
      const before = await envDirs();
      const job = await client.submit({
        name: unique('bad-lock'),
        entrypoint: Entrypoint.fromBinary('python', ['-c', 'print("must not run")']),
        pythonEnv: PythonEnvSpec.fromLock('six==99.0.0\n', { name: 'bad.lock' }),
        maxRetriesFailure: 0,
      });
      const err = (await job.wait().catch((e: unknown) => e)) as JobFailed;
      expect(err).toBeInstanceOf(JobFailed);
      expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED', failedStatus: 'failed', jobId: job.jobId });
      // The installer's own text (it names the unsatisfiable pin) reaches the caller, not just "exit code 1".
      expect(err.message).toContain('six==99.0.0');
      // Structured, so callers (the pipeline) tell a Python-environment problem from a failing command.
      const cause = err.cause as { code?: string; details?: Record<string, unknown> };
      expect(cause).toMatchObject({ code: 'FRAY_JOB_FAILED', details: { lock: 'bad.lock' } });
      expect(cause.details?.['errorText']).toEqual(expect.stringContaining('six==99.0.0'));
      const logs = await job.logs();
      expect(logs.some((l) => l.includes('six==99.0.0'))).toBe(true);
      expect(logs).not.toContain('must not run');
      expect(await job.status()).toBe('failed');
      expect(await envDirs()).toEqual(before);
    });
  });
}
