// The Ray backend against a real Ray head (ray[default] from packages/fray/python/ray.lock), one head for the file.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Entrypoint, PythonEnvSpec, ResourceConfig, createRayClient, isFinished, silentLogger } from '@marin/fray';
import type { RayClient, RayJobHandle } from '@marin/fray';
import { startRayHead } from '@marin/fray/testing';
import type { RayHead } from '@marin/fray/testing';
import { clientContract } from '../contracts/client.contract.js';
import { pendingReasonContract } from '../contracts/pending-reason.contract.js';
import { pythonEnvContract } from '../contracts/python-env.contract.js';

let head: RayHead | null = null;
const opened: RayClient[] = [];
// The head runs on this machine, so its one node keeps the environments of pythonEnv jobs here.
const pythonEnvCacheDir = mkdtempSync(join(tmpdir(), 'fray-pyenv-ray-'));

beforeAll(async () => {
  head = await startRayHead({ numCpus: 2, resources: { TPU: 4, 'TPU-v4-8-head': 1 } });
}, 200_000); // the head may take up to 150 s under a full test run (startTimeoutMs)

afterAll(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  await head?.close();
  rmSync(pythonEnvCacheDir, { recursive: true, force: true });
}, 60_000);

function open(): RayClient {
  if (head === null) throw new Error('the Ray head did not start');
  const client = createRayClient({ address: head.address, python: head.python, logger: silentLogger, jobPrefix: `t${Date.now().toString(36)}-`, pythonEnvCacheDir });
  opened.push(client);
  return client;
}

clientContract('ray', open);

// The head has 4 TPU chips of a v4-8; a v5litepod-8 needs 8 on one VM.
pendingReasonContract('ray', { open, unplaceable: ResourceConfig.withTpu('v5litepod-8', { cpu: 1, ram: '256m', disk: '1g' }) });

pythonEnvContract('ray', {
  open,
  envRoot: () => pythonEnvCacheDir,
  isBuildLine: (l) => l.startsWith('[python-env] building Python'),
  isReuseLine: (l) => l.startsWith('[python-env] reusing Python'),
});

const uniq = (base: string) => `${base}-${Math.random().toString(16).slice(2, 8)}`;

describe('Ray backend', () => {
  it('keeps awkward arguments intact through the shell entrypoint and sets env vars through runtime_env', async () => {
    await using client = open();
    const args = ["it's", 'a b', '$HOME', '`id`', '"q"', '*', ';&|'];
    const job = await client.submit({
      name: uniq('argv'),
      entrypoint: Entrypoint.fromBinary('node', ['-e', 'console.log(JSON.stringify([process.cwd(), process.env.GREETING, ...process.argv.slice(1)]))', ...args]),
      environment: { envVars: { GREETING: 'hi there' } },
    });
    expect(await job.wait()).toBe('succeeded');
    const line = (await job.logs()).find((l) => l.startsWith('['));
    expect(JSON.parse(line ?? 'null')).toEqual([process.cwd().replace(/\/packages\/fray$/, ''), 'hi there', ...args]);
    expect((await client.list()).map((j) => j.submissionId)).toContain(job.jobId);
  });

  it('runs a module entrypoint in place, whose currentClient() is Ray and names its child after it', async () => {
    await using client = open();
    const dir = mkdtempSync(join(tmpdir(), 'fray-ray-'));
    const out = join(dir, 'child.json');
    const parent = await client.submit({
      name: uniq('parent'),
      entrypoint: Entrypoint.fromModule({ module: 'packages/fray/test/fixtures/jobs.ts', exportName: 'submitChild', args: { out } }),
      resources: ResourceConfig.withCpu({ cpu: 0.5, ram: '256m' }),
    });
    expect(await parent.wait()).toBe('succeeded');
    const seen = JSON.parse(readFileSync(out, 'utf8')) as { backend: string; childId: string; status: string };
    expect(seen).toMatchObject({ backend: 'ray', status: 'succeeded' });
    expect(seen.childId.startsWith(`${parent.jobId}.child`)).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a job on the fake TPU slice, and reports one needing a missing TPU as pending with Ray\'s reason until stopped', async () => {
    await using client = open();
    const fits = await client.submit({ name: uniq('tpu-ok'), entrypoint: Entrypoint.fromBinary('true', []), resources: ResourceConfig.withTpu('v4-8', { cpu: 0.1, ram: '64m' }) });
    const lacks = await client.submit({ name: uniq('tpu-missing'), entrypoint: Entrypoint.fromBinary('true', []), resources: ResourceConfig.withTpu('v6e-8', { cpu: 0.1, ram: '64m' }) });
    expect(await fits.wait()).toBe('succeeded');
    await expect(lacks.wait({ timeoutMs: 1500 })).rejects.toMatchObject({ code: 'FRAY_WAIT_TIMEOUT' });
    expect(await lacks.status()).toBe('pending');
    const info = await lacks.info();
    expect(info).toMatchObject({ state: 'PENDING' });
    expect(info.message).not.toBe('');
    await lacks.terminate();
    expect(await lacks.wait({ raiseOnFailure: false })).toBe('stopped');
  });

  it('puts a failing job\'s Ray logs and message into JobFailed, and follows logs to the end', async () => {
    await using client = open();
    const job = await client.submit({ name: uniq('fails'), entrypoint: Entrypoint.fromBinary('node', ['-e', 'console.log("line one"); console.error("boom: no data"); process.exit(4)']) });
    const followed: string[] = [];
    for await (const line of job.followLogs({ pollMs: 100 })) followed.push(line);
    expect(followed).toContain('line one');
    const err = await job.wait().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED', failedStatus: 'failed', cause: { details: { state: 'FAILED', exitCode: 4 } } });
    expect((err as { cause: { details: { logTail: string[] } } }).cause.details.logTail).toContain('boom: no data');
  });

  it('runs a gang as one job whose replicas get their own task index', async () => {
    await using client = open();
    const job = await client.submit({
      name: uniq('gang'),
      entrypoint: Entrypoint.fromBinary('node', ['-e', 'console.log(`replica ${process.env.FRAY_TASK_INDEX} of ${process.env.FRAY_NUM_TASKS}`)']),
      resources: ResourceConfig.withCpu({ cpu: 0.25, ram: '64m' }),
      replicas: 2,
    });
    expect(await job.wait()).toBe('succeeded');
    const logs = await job.logs();
    // Ray prefixes task output with the task's name and pid.
    expect(logs.some((l) => l.endsWith('[task 0] replica 0 of 2'))).toBe(true);
    expect(logs.some((l) => l.endsWith('[task 1] replica 1 of 2'))).toBe(true);
  });

  it('runs every replica of a gang in the job\'s Python environment, built once on the node', async () => {
    await using client = open();
    const job = await client.submit({
      name: uniq('gang-env'),
      entrypoint: Entrypoint.fromBinary('python', ['-c', 'import os, six; print("six", six.__version__, "task", os.environ["FRAY_TASK_INDEX"])']),
      resources: ResourceConfig.withCpu({ cpu: 0.25, ram: '64m' }),
      replicas: 2,
      pythonEnv: PythonEnvSpec.fromLock(`# gang ${uniq('lock')}\nsix==1.17.0\n`, { name: 'six.lock' }),
    });
    expect(await job.wait()).toBe('succeeded');
    const logs = await job.logs();
    expect(logs.some((l) => l.endsWith('[task 0] six 1.17.0 task 0'))).toBe(true);
    expect(logs.some((l) => l.endsWith('[task 1] six 1.17.0 task 1'))).toBe(true);
    expect(logs.filter((l) => /\[task \d\] \[python-env\] building Python/.test(l))).toHaveLength(1);
  });

  it('stops the jobs a job submitted from inside itself when the job is terminated through its handle', async () => {
    await using client = open();
    const { parent, child } = await parentWithLongChild(client);
    await parent.terminate();
    expect(await parent.wait({ raiseOnFailure: false })).toBe('stopped');
    expect(await child.wait({ raiseOnFailure: false, timeoutMs: 30_000 })).toBe('stopped');
    expect(await child.info()).toMatchObject({ metadata: { fray_parent: parent.jobId } });
  });

  it('stops a job\'s children when Ray itself stops the job (SIGTERM to its entrypoint)', async () => {
    await using client = open();
    const { parent, child } = await parentWithLongChild(client);
    // Ray's own CLI: nothing of Fray's client side runs, so only the parent process can stop its child.
    execFileSync('ray', ['job', 'stop', '--address', client.address, parent.jobId], { env: { ...process.env, ...head?.env }, stdio: 'ignore' });
    expect(await parent.wait({ raiseOnFailure: false })).toBe('stopped');
    expect(await child.wait({ raiseOnFailure: false, timeoutMs: 30_000 })).toBe('stopped');
  });
});

/** A module job whose export submits a minute-long child through currentClient(); resolves once the child runs. */
async function parentWithLongChild(client: RayClient): Promise<{ parent: RayJobHandle; child: RayJobHandle }> {
  const dir = mkdtempSync(join(tmpdir(), 'fray-ray-tree-'));
  try {
    const out = join(dir, 'child.json');
    const parent = await client.submit({
      name: uniq('tree'),
      entrypoint: Entrypoint.fromModule({ module: 'packages/fray/test/fixtures/jobs.ts', exportName: 'submitLongChild', args: { out } }),
      resources: ResourceConfig.withCpu({ cpu: 0.5, ram: '256m' }),
    });
    const deadline = Date.now() + 60_000;
    while (!existsSync(out)) {
      if (Date.now() > deadline || isFinished(await parent.status())) {
        await parent.terminate();
        throw new Error(`the parent never submitted its child: ${(await parent.logs()).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const child = client.handle((JSON.parse(readFileSync(out, 'utf8')) as { childId: string }).childId);
    await expect.poll(() => child.status(), { timeout: 30_000, interval: 200 }).toBe('running');
    return { parent, child };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
