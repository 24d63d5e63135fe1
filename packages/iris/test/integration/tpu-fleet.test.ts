import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import type { IrisClient } from '../../src/client/iris-client.js';
import type { JobInfo } from '../../src/core/job-types.js';
import { startController } from '../../src/cluster/start-controller.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';
import { spawnIris } from '../helpers/cli-process.js';
import type { CliProcess } from '../helpers/cli-process.js';
import { createGate, eventually } from '../helpers/gate.js';

// A real controller and 10 real worker processes (`iris worker start`): two simulated
// v5litepod-16 slices of 4 workers each (tpu-name/tpu-worker-id) and two CPU workers.
let controller: ControllerHandle;
let client: IrisClient;
let cacheRoot: string;
const workers: CliProcess[] = [];
beforeAll(async () => {
  controller = await startController({ reconcileIntervalMs: 100 });
  client = createIrisClient({ address: controller.address });
  cacheRoot = mkdtempSync(join(tmpdir(), 'iris-fleet-'));
  const base = (id: string) => ['worker', 'start', '--controller', controller.address, '--worker-id', id, '--cache-dir', join(cacheRoot, id), '--cpu', '2', '--memory', '2g'];
  for (const slice of ['slice-a', 'slice-b']) {
    for (let i = 0; i < 4; i++) workers.push(spawnIris([...base(`${slice}-${i}`), '--tpu', 'v5litepod-16', '--tpu-name', slice, '--tpu-worker-id', String(i)]));
  }
  for (let i = 0; i < 2; i++) workers.push(spawnIris(base(`cpu-${i}`)));
  await Promise.all(workers.map((w) => w.waitForOutput('iris worker', 120_000)));
  await eventually(async () => ((await client.listWorkers()).length === 10 ? true : undefined), 60_000, '10 registered workers');
}, 180_000);
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  await client?.close();
  await controller?.close();
  if (cacheRoot) rmSync(cacheRoot, { recursive: true, force: true });
}, 120_000);

const tpuJob = (name: string, command: string[]) => ({
  name,
  command,
  resources: { cpu: 0.1, memory: '64m', device: { kind: 'tpu' as const, variant: 'v5litepod-16' } },
});

async function running(jobId: string): Promise<JobInfo> {
  return eventually(async () => {
    const j = await client.getJob(jobId, { includeTasks: true });
    return j.tasks.every((t) => t.state === 'RUNNING') ? j : undefined;
  }, 60_000, `${jobId} running`);
}

function sliceOf(job: JobInfo): Set<string> {
  return new Set(job.tasks.map((t) => t.workerId.replace(/-\d+$/, '')));
}

describe('simulated TPU fleet', () => {
  it('places a v5litepod-16 job as 4 tasks on one slice, task i on tpu-worker-id i', async () => {
    const jobId = await client.launchJob(tpuJob('/fleet/one', ['node', '-e', 'console.log(`id=${process.env.TPU_WORKER_ID} name=${process.env.TPU_NAME}`)']));
    const job = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job.state).toBe('SUCCEEDED');
    expect(job.tasks).toHaveLength(4);
    expect(sliceOf(job).size).toBe(1);
    for (const t of job.tasks) expect(t.workerId).toMatch(new RegExp(`^slice-[ab]-${t.taskIndex}$`));
    const logs = await client.fetchLogs({ jobId });
    const seen = logs.entries.map((e) => [Number(e.taskId.split('/').pop()), e.data]).sort();
    expect(seen.map(([i, line]) => String(line).startsWith(`id=${i} `))).toEqual([true, true, true, true]);
  });

  it('gives two jobs both slices without sharing; a third waits with a reason; it runs once a slice frees', async () => {
    using gate = createGate();
    const a = await client.launchJob(tpuJob('/fleet/a', gate.command()));
    const b = await client.launchJob(tpuJob('/fleet/b', gate.command()));
    const [ja, jb] = [await running(a), await running(b)];
    const [sa, sb] = [sliceOf(ja), sliceOf(jb)];
    expect(sa.size).toBe(1);
    expect(sb.size).toBe(1);
    expect([...sa][0]).not.toBe([...sb][0]);

    const c = await client.launchJob(tpuJob('/fleet/c', gate.command()));
    const pending = await eventually(async () => {
      const j = await client.getJob(c);
      return j.pendingReason.includes('coscheduling') || j.pendingReason.includes('TPU') ? j : undefined;
    }, 30_000, 'pending reason');
    expect(pending.state).toBe('PENDING');
    expect(pending.canBeScheduled).toBe(true);
    gate.open();
    expect((await client.waitForJob(a, { timeoutMs: 60_000 })).state).toBe('SUCCEEDED');
    expect((await client.waitForJob(b, { timeoutMs: 60_000 })).state).toBe('SUCCEEDED');
    expect((await client.waitForJob(c, { timeoutMs: 60_000 })).state).toBe('SUCCEEDED');
  }, 180_000);

  it('says which constraint fails for a variant no worker has, instead of hanging', async () => {
    const jobId = await client.launchJob({ name: '/fleet/v4', command: ['true'], resources: { cpu: 0.1, device: { kind: 'tpu', variant: 'v4-8' } } });
    const job = await eventually(async () => {
      const j = await client.getJob(jobId);
      return j.canBeScheduled ? undefined : j;
    }, 30_000, 'diagnostic');
    expect(job.state).toBe('PENDING');
    expect(job.pendingReason).toContain('device-variant');
    await client.terminateJob(jobId);
  });

  it('a gang task failing terminally stops its siblings (COSCHED_FAILED) and fails the job', async () => {
    using gate = createGate();
    const jobId = await client.launchJob(
      tpuJob('/fleet/gang-fail', [
        'node',
        '-e',
        `if (process.env.TPU_WORKER_ID === '2') { setTimeout(() => process.exit(7), 300); } else { setInterval(() => {}, 1000); }`,
      ]),
    );
    const job = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job.state).toBe('FAILED');
    expect(job.exitCode).toBe(7);
    const states = job.tasks.map((t) => t.state);
    expect(states[2]).toBe('FAILED');
    expect(states.filter((s) => s === 'COSCHED_FAILED')).toHaveLength(3);
    // The siblings' processes are stopped: their attempts end on the workers.
    await eventually(async () => {
      const j = await client.getJob(jobId, { includeTasks: true });
      return j.tasks.every((t) => t.attempts.every((at) => at.finishedAtMs > 0)) ? true : undefined;
    }, 60_000, 'sibling attempts stopped');
    gate.open();
  }, 120_000);

  it('runs CPU jobs on the CPU workers and on TPU workers alike', async () => {
    const ids = await Promise.all([0, 1, 2].map((i) => client.launchJob({ name: `/fleet/cpu-${i}`, command: ['node', '-e', '0'], resources: { cpu: 0.1 } })));
    for (const id of ids) expect((await client.waitForJob(id, { timeoutMs: 60_000 })).state).toBe('SUCCEEDED');
  });
});
