// The Ray backend against a real Ray head (ray[default] from packages/fray/python/ray.lock), one head for the file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Entrypoint, ResourceConfig, createRayClient, silentLogger } from '@marin/fray';
import type { RayClient } from '@marin/fray';
import { startRayHead } from '@marin/fray/testing';
import type { RayHead } from '@marin/fray/testing';
import { clientContract } from '../contracts/client.contract.js';

let head: RayHead | null = null;
const opened: RayClient[] = [];

beforeAll(async () => {
  head = await startRayHead({ numCpus: 2, resources: { TPU: 4, 'TPU-v4-8-head': 1 } });
}, 90_000);

afterAll(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  await head?.close();
}, 60_000);

function open(): RayClient {
  if (head === null) throw new Error('the Ray head did not start');
  const client = createRayClient({ address: head.address, python: head.python, logger: silentLogger, jobPrefix: `t${Date.now().toString(36)}-` });
  opened.push(client);
  return client;
}

clientContract('ray', open);

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
});
