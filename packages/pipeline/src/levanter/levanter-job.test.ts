import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FrayError, JobFailed, PythonEnvSpec, ResourceConfig } from '@marin/fray';
import type { Client, JobHandle } from '@marin/fray';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runLevanterJob } from './levanter-job.js';

/** A client whose one job fails with `failure` (every backend's `JobFailed` has this shape; Fray's contracts check it). */
function failingClient(failure: unknown, lines: string[]): Client {
  const handle: JobHandle = {
    jobId: 'job-1',
    status: () => Promise.resolve('failed'),
    pendingReason: () => Promise.resolve(undefined),
    wait: () => Promise.reject(failure),
    logs: () => Promise.resolve(lines),
    terminate: () => Promise.resolve(),
  };
  return {
    submit: () => Promise.resolve(handle),
    shutdown: () => Promise.resolve(),
    close: () => Promise.resolve(),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'levanter-job-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (client: Client) =>
  runLevanterJob({
    what: 'train_lm',
    jobName: 'train',
    args: ['-m', 'levanter.main.train_lm'],
    resources: ResourceConfig.withCpu(),
    envVars: {},
    pythonEnv: PythonEnvSpec.fromLock('six==99.0.0\n', { name: 'levanter.lock' }),
    signal: new AbortController().signal,
    configPath: join(dir, 'config.yaml'),
    logPath: join(dir, 'job.log'),
    client,
  });

describe('runLevanterJob() failure classification', () => {
  it('reports a lock that did not install as a Python-environment problem, from the cause\'s lock and errorText', async () => {
    const cause = new FrayError('FRAY_JOB_FAILED', 'cannot build', { details: { state: 'JOB_STATE_FAILED', exitCode: 97, lock: 'levanter.lock', errorText: 'no version of six==99.0.0' } });
    const err = await run(failingClient(new JobFailed('job-1', 'failed', 'Job job-1 FAILED', cause), [])).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PIPELINE_JOB_FAILED', details: { stage: 'python-env', lock: 'levanter.lock', errorLine: 'no version of six==99.0.0' } });
  });

  it('reports any other failure as Levanter\'s, with the last error line of its output', async () => {
    const cause = new FrayError('FRAY_JOB_FAILED', 'exit 1', { details: { state: 'JOB_STATE_FAILED', exitCode: 1 } });
    const lines = ['Traceback (most recent call last):', 'ValueError: bad config'];
    const err = await run(failingClient(new JobFailed('job-1', 'failed', 'Job job-1 FAILED', cause), lines)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PIPELINE_JOB_FAILED', details: { stage: 'levanter' } });
  });
});
