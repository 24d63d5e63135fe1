import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PYTHON_ENV_MARKER } from '@marin/rigging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Entrypoint, JobFailed, PythonEnvSpec, createLocalClient } from '@marin/fray';
import type { FrayLogger, JobHandle } from '@marin/fray';
import { pythonEnvContract } from '../contracts/python-env.contract.js';

const quiet: FrayLogger = { info: () => undefined, warn: () => undefined };

let dir: string;
let cacheDir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fray-pyenv-local-'));
  cacheDir = join(dir, 'python-envs');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

pythonEnvContract('local', {
  open: () => createLocalClient({ logger: quiet, pythonEnvCacheDir: cacheDir }),
  envRoot: () => cacheDir,
  isBuildLine: (l) => l.startsWith('[python-env] building Python'),
  isReuseLine: (l) => l.startsWith('[python-env] reusing Python'),
});

const buildLines = async (job: JobHandle): Promise<string[]> => (await job.logs()).filter((l) => l.startsWith('[python-env] building Python'));

describe('local backend: Python environments', () => {
  it('keeps the rigging build error as the cause of a failed install, with the lock and uv\'s text in details', async () => {
    await using client = createLocalClient({ logger: quiet, pythonEnvCacheDir: cacheDir });
    const job = await client.submit({
      name: 'bad-lock-cause',
      entrypoint: Entrypoint.fromBinary('python', ['-c', 'print("must not run")']),
      pythonEnv: PythonEnvSpec.fromLock('six==99.0.0\n', { name: 'bad.lock' }),
    });
    const err = (await job.wait().catch((e: unknown) => e)) as JobFailed;
    expect(err).toBeInstanceOf(JobFailed);
    const cause = err.cause as { code: string; details: { errorText: string; lock: string }; cause: unknown };
    expect(cause).toMatchObject({ code: 'FRAY_JOB_FAILED', details: { lock: 'bad.lock' } });
    expect(cause.details.errorText).toContain('six==99.0.0');
    expect(cause.cause).toMatchObject({ code: 'RIGGING_ENV_BUILD_FAILED' });
    expect(err.message).toContain(cause.details.errorText);
  });

  it('stops a job terminated while its environment builds', async () => {
    await using client = createLocalClient({ logger: quiet, pythonEnvCacheDir: cacheDir });
    const job = await client.submit({
      name: 'cancel',
      entrypoint: Entrypoint.fromBinary('python', ['-c', 'import six']),
      pythonEnv: PythonEnvSpec.fromLock(`# cancel ${Date.now()}\nsix==1.17.0\n`),
    });
    // Stop it once uv runs: nothing half-built may remain (a build that won the race is complete).
    while ((await buildLines(job)).length === 0) await new Promise((r) => setTimeout(r, 10));
    await job.terminate();
    expect(await job.wait({ raiseOnFailure: false })).toBe('stopped');
    for (const name of (await readdir(cacheDir)).filter((n) => !n.endsWith('.lock') && !n.includes('.tmp-'))) await access(join(cacheDir, name, PYTHON_ENV_MARKER));
    expect((await readdir(cacheDir).catch(() => [])).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });
});
