import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster } from '@marin/iris';
import type { LocalClusterHandle } from '@marin/iris';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Entrypoint, JobFailed, PythonEnvSpec, createIrisBackend } from '@marin/fray';
import type { FrayLogger } from '@marin/fray';
import { pythonEnvContract } from '../contracts/python-env.contract.js';

const quiet: FrayLogger = { info: () => undefined, warn: () => undefined };

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

// The lock travels in the job spec; the cluster's one worker builds it under its cache dir.
pythonEnvContract('iris', {
  open: () => createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet }),
  envRoot: () => join(cacheRoot, 'worker-0', 'python-envs'),
  isBuildLine: (l) => l.startsWith('building Python'),
  isReuseLine: (l) => l.startsWith('[iris] reusing Python'),
});

describe('Iris backend: Python environments', () => {
  it('spends the failure budget, not the preemption budget, on a lock that does not install', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    await using iris = cluster.client();
    const job = await fray.submit({
      name: `bad-lock-${Math.random().toString(16).slice(2, 8)}`,
      entrypoint: Entrypoint.fromBinary('python', ['-c', 'print("must not run")']),
      pythonEnv: PythonEnvSpec.fromLock('six==99.0.0\n', { name: 'bad.lock' }),
      maxRetriesFailure: 0,
      maxRetriesPreemption: 5,
    });
    const err = (await job.wait().catch((e: unknown) => e)) as JobFailed;
    expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED', failedStatus: 'failed', cause: { details: { state: 'FAILED' } } });
    expect(await iris.getJob(job.jobId)).toMatchObject({ state: 'FAILED', failureCount: 1, preemptionCount: 0 });
  });
});
