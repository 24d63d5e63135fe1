import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster } from '@marin/iris';
import type { LocalClusterHandle } from '@marin/iris';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Entrypoint, JobFailed, ResourceConfig, createEnvironment, createIrisBackend, findWorkspaceRoot, waitAll } from '@marin/fray';
import type { FrayLogger, IrisJobClient } from '@marin/fray';

import { clientContract } from '../contracts/client.contract.js';
import { pendingReasonContract } from '../contracts/pending-reason.contract.js';
import { reentryCommand } from '../helpers/reentry-command.js';

const FIXTURE = 'packages/fray/test/fixtures/jobs.ts';
const quiet: FrayLogger = { info: () => undefined, warn: () => undefined };

let cluster: LocalClusterHandle;
let dir: string;

beforeAll(async () => {
  cluster = await startLocalCluster({ workers: 2, cpuMillicores: 4000, termTimeoutMs: 1000 });
});
afterAll(async () => {
  await cluster.close();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fray-iris-'));
  return () => rm(dir, { recursive: true, force: true });
});

clientContract('iris, in place', () => createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet }));

// No worker of the embedded cluster has a TPU.
pendingReasonContract('iris', {
  open: () => createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet }),
  unplaceable: ResourceConfig.withTpu('v5litepod-8', { cpu: 1, ram: '256m', disk: '1g' }),
});

/** A unique job name per test run: the cluster outlives single tests. */
function name(base: string): string {
  return `${base}-${Math.random().toString(16).slice(2, 8)}`;
}

describe('Iris backend on an embedded cluster (in place)', () => {
  it('runs a module entrypoint through the generated runner', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    const out = join(dir, 'marker.json');
    const job = await fray.submit({
      name: name('module'),
      entrypoint: Entrypoint.fromModule({ module: FIXTURE, exportName: 'writeMarker', args: { out, text: 'on iris' } }),
    });
    expect(job.jobId).toMatch(/^\/[^/]+\/module-[0-9a-f]+$/);
    expect(await job.wait()).toBe('succeeded');
    expect(await job.status()).toBe('succeeded');
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual({ text: 'on iris', jobId: job.jobId, taskIndex: 0 });
  });

  it('fails on a throwing export: JobFailed "Job <id> FAILED: <error>", or failed without raising; logs hold the stack', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    const job = await fray.submit({ name: name('throws'), entrypoint: Entrypoint.fromModule({ module: FIXTURE, exportName: 'explode', args: { message: 'kaput-on-iris' } }) });
    const err = (await job.wait().catch((e: unknown) => e)) as JobFailed;
    expect(err).toBeInstanceOf(JobFailed);
    expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED', jobId: job.jobId, failedStatus: 'failed' });
    expect(err.message.startsWith(`Job ${job.jobId} FAILED: `)).toBe(true);
    expect(err.cause).toMatchObject({ details: { state: 'FAILED', exitCode: 1 } });
    expect(await job.wait({ raiseOnFailure: false })).toBe('failed');
    expect((await job.logs()).join('\n')).toContain('kaput-on-iris');
  });

  it('maps a binary exit 3 to failed', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    const ok = await fray.submit({ name: name('ok'), entrypoint: Entrypoint.fromBinary('node', ['-e', 'console.log("hello from iris")']) });
    const bad = await fray.submit({ name: name('exit3'), entrypoint: Entrypoint.fromBinary('node', ['-e', 'process.exit(3)']) });
    expect(await waitAll([ok, bad], { raiseOnFailure: false })).toEqual(['succeeded', 'failed']);
    expect(await ok.logs()).toContain('hello from iris');
    await expect(bad.wait()).rejects.toMatchObject({ code: 'FRAY_JOB_FAILED', cause: { details: { exitCode: 3 } } });
  });

  it('adopts a running job of the same name, throws JobAlreadyExists without adoptExisting, and terminates to stopped', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    const jobName = name('adopt');
    const request = { name: jobName, entrypoint: Entrypoint.fromBinary('node', ['-e', 'setTimeout(() => {}, 60000)']) };
    const first = await fray.submit(request);
    const again = await fray.submit(request);
    expect(again.jobId).toBe(first.jobId);
    await expect(fray.submit(request, { adoptExisting: false })).rejects.toMatchObject({ code: 'FRAY_JOB_ALREADY_EXISTS', jobName });
    await expect(first.wait({ timeoutMs: 300 })).rejects.toMatchObject({ code: 'FRAY_WAIT_TIMEOUT', jobIds: [first.jobId] });
    await first.terminate();
    expect(await first.wait({ raiseOnFailure: false })).toBe('stopped');
    await expect(first.wait()).rejects.toMatchObject({ code: 'FRAY_JOB_FAILED', failedStatus: 'stopped' });
  });

  it('inside a task, currentClient() is an Iris backend whose submissions are child jobs', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    const out = join(dir, 'child.json');
    const parent = await fray.submit({ name: name('parent'), entrypoint: Entrypoint.fromModule({ module: FIXTURE, exportName: 'submitChild', args: { out } }) });
    expect(await parent.wait()).toBe('succeeded');
    const seen = JSON.parse(await readFile(out, 'utf8')) as { backend: string; childId: string; status: string; parent: string };
    expect(seen).toEqual({ backend: 'iris', childId: `${parent.jobId}/child`, status: 'succeeded', parent: parent.jobId });
    expect((await parent.logs()).join('\n')).toContain('child ran');
  });

  it('refuses a callable without reentry and reports unknown dependency groups before launching', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, logger: quiet, workspace: findWorkspaceRoot() });
    await expect(fray.submit({ name: name('closure'), entrypoint: Entrypoint.fromCallable(() => 1) })).rejects.toMatchObject({
      code: 'FRAY_ENTRYPOINT_NOT_PORTABLE',
    });
    await expect(
      fray.submit({ name: name('groups'), entrypoint: Entrypoint.fromBinary('true'), environment: createEnvironment({ dependencyGroups: ['no-such-group'] }) }),
    ).rejects.toMatchObject({ code: 'FRAY_INVALID_ARGUMENT' });
  });
});

function countingClient(): IrisJobClient & { uploads: () => number; lastBundleId: () => string | undefined } {
  const real = cluster.client();
  let uploads = 0;
  let lastBundleId: string | undefined;
  return {
    uploads: () => uploads,
    lastBundleId: () => lastBundleId,
    launchJob: (spec, o) => real.launchJob(spec, o),
    getJob: (id, o) => real.getJob(id, o),
    getJobStates: (ids) => real.getJobStates(ids),
    terminateJob: (id, o) => real.terminateJob(id, o),
    fetchLogs: (q) => real.fetchLogs(q),
    uploadBundle: async (b) => {
      uploads += 1;
      lastBundleId = await real.uploadBundle(b);
      return lastBundleId;
    },
    close: () => real.close(),
  };
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Exits 5 unless it runs in a bundle extraction (repo files present, no node_modules). */
const BUNDLE_CHECK = 'const fs = require("fs"); if (!fs.existsSync("packages/fray/package.json") || fs.existsSync("node_modules")) process.exit(5)';

describe('Iris backend on an embedded cluster (bundled)', () => {
  it('uploads the workspace bundle once and runs jobs in its extraction', async () => {
    const counting = countingClient();
    await using fray = createIrisBackend({ irisClient: counting, logger: quiet });
    const env = createEnvironment({ setupCommands: [] });
    const a = await fray.submit({ name: name('bundled-a'), entrypoint: Entrypoint.fromBinary('node', ['-e', BUNDLE_CHECK]), environment: env });
    const b = await fray.submit({ name: name('bundled-b'), entrypoint: Entrypoint.fromBinary('node', ['-e', BUNDLE_CHECK]), environment: env });
    expect(await waitAll([a, b])).toEqual(['succeeded', 'succeeded']);
    expect(counting.uploads()).toBe(1);
    await counting.close();
  });

  it('inside a task, submits children that reuse the parent bundle without uploading', async () => {
    const parentClient = countingClient();
    await using fray = createIrisBackend({ irisClient: parentClient, logger: quiet });
    const parent = await fray.submit({
      name: name('bundled-parent'),
      entrypoint: Entrypoint.fromBinary('node', ['-e', 'setTimeout(() => {}, 60000)']),
      environment: createEnvironment({ setupCommands: [] }),
    });
    await until(async () => (await parent.status()) === 'running');
    const bundleId = parentClient.lastBundleId() as string;
    expect(bundleId).toMatch(/^[0-9a-f]{64}$/);
    // Act as code inside the parent's task: the Iris client names jobs and picks the bundle from IRIS_* variables.
    const saved = { ...process.env };
    Object.assign(process.env, { IRIS_TASK_ID: `${parent.jobId}/0`, IRIS_JOB_ID: parent.jobId, IRIS_BUNDLE_ID: bundleId, IRIS_CONTROLLER_ADDRESS: cluster.address });
    try {
      const childClient = countingClient();
      await using inTask = createIrisBackend({ irisClient: childClient, inTask: true, logger: quiet });
      const child = await inTask.submit({ name: 'child', entrypoint: Entrypoint.fromBinary('node', ['-e', BUNDLE_CHECK]) });
      expect(child.jobId).toBe(`${parent.jobId}/child`);
      expect(await child.wait()).toBe('succeeded');
      expect(childClient.uploads()).toBe(0);
      await childClient.close();
    } finally {
      for (const key of ['IRIS_TASK_ID', 'IRIS_JOB_ID', 'IRIS_BUNDLE_ID', 'IRIS_CONTROLLER_ADDRESS']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
    await parent.terminate();
    await parentClient.close();
  });
});

describe('callable re-entry on an embedded cluster', () => {
  it('runs the re-entry command in place with step_config.json shipped privately, and reports a missing step as failed', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    const out = join(dir, 'step.json');
    const common = { fixture: 'reentry-entry.ts', nodeFlags: ['--conditions=@marin/source', '--import', 'tsx'], args: ['--user-flag'], prefix: dir };
    const reentry = reentryCommand({ ...common, runStep: `${dir}/tokenized/x-abc123`, config: { out } });
    const job = await fray.submit({ name: name('step'), entrypoint: Entrypoint.fromCallable(() => undefined, { reentry }) });
    expect(await job.wait()).toBe('succeeded');
    const seen = JSON.parse(await readFile(out, 'utf8')) as { runStep: string; cwd: string };
    expect(seen).toMatchObject({ runStep: `${dir}/tokenized/x-abc123`, cwd: findWorkspaceRoot() });

    const missing = reentryCommand({ ...common, runStep: 'nope', config: { out, fail: true } });
    const bad = await fray.submit({ name: name('step-missing'), entrypoint: Entrypoint.fromCallable(() => undefined, { reentry: missing }) });
    expect(await bad.wait({ raiseOnFailure: false })).toBe('failed');
    expect((await bad.logs()).join('\n')).toContain('not found in the rebuilt DAG');
  });

  it('ships step_config.json as a workdir file of a bundled task', async () => {
    const counting = countingClient();
    await using fray = createIrisBackend({ irisClient: counting, logger: quiet });
    const out = join(dir, 'bundled-step.json');
    const reentry = reentryCommand({ fixture: 'reentry-entry.mjs', prefix: dir, runStep: `${dir}/step-xyz`, config: { out } });
    const job = await fray.submit({ name: name('bundled-step'), entrypoint: Entrypoint.fromCallable(() => undefined, { reentry }), environment: createEnvironment({ setupCommands: [] }) });
    expect(await job.wait()).toBe('succeeded');
    const seen = JSON.parse(await readFile(out, 'utf8')) as { runStep: string; configFile: string; cwd: string };
    expect(seen).toMatchObject({ runStep: `${dir}/step-xyz`, configFile: 'step_config.json' });
    expect(seen.cwd).not.toBe(findWorkspaceRoot());
    await counting.close();
  });
});
