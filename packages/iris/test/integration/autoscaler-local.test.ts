import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClusterConfig } from '../../src/autoscaler/cluster-config.js';
import type { ClusterConfigInput } from '../../src/autoscaler/cluster-config.js';
import { startCluster } from '../../src/cluster/start-cluster.js';
import { createIrisClient } from '../../src/client/iris-client.js';
import type { IrisClient } from '../../src/client/iris-client.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';
import { eventually } from '../helpers/gate.js';

// A cluster that starts with no workers at all: the autoscaler creates every slice through the
// `local` platform (real worker daemon processes), with timings shrunk through the config.
let stateDir: string;
let cluster: ControllerHandle;
let client: IrisClient;

const config = (dir: string): ClusterConfigInput => ({
  controller: { address: '127.0.0.1:0', state_dir: dir, reconcile_interval_ms: 100, checkpoint_interval_ms: 0 },
  platforms: { here: { kind: 'local', max_workers: 6 } },
  scale_groups: [
    { name: 'cpu', slice: { kind: 'cpu' }, resources: { cpu: 1, memory_bytes: 1 << 30 }, min_slices: 0, max_slices: 1, priority: 10 },
    { name: 'tpu-v5e-16', slice: { kind: 'tpu', variant: 'v5litepod-16' }, resources: { cpu: 1, memory_bytes: 1 << 30 }, min_slices: 0, max_slices: 2, priority: 20 },
  ],
  autoscaler: {
    evaluation_interval_ms: 100,
    scale_up_delay_ms: 200,
    scale_down_idle_ms: 1500,
    startup_grace_ms: 120_000,
    backoff_initial_ms: 60_000,
    backoff_max_ms: 120_000,
    max_concurrent_creates: 2,
  },
});

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'iris-autoscaler-'));
  cluster = await startCluster(parseClusterConfig(config(stateDir)), { dashboardBind: null, warn: () => undefined });
  client = createIrisClient({ address: cluster.address });
}, 60_000);

afterAll(async () => {
  await client?.close();
  await cluster?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 120_000);

const slicesOf = (group: string) => (cluster.autoscalerStatus()?.slices ?? []).filter((s) => s.group === group);

describe('autoscaler on the local platform', () => {
  it('creates one v5litepod-16 slice for a 4-task gang, runs the gang, then reaps the idle slice', async () => {
    expect(slicesOf('tpu-v5e-16')).toEqual([]);
    const jobId = await client.launchJob({
      name: '/scale/gang',
      command: ['node', '-e', 'console.log(`worker ${process.env.TPU_WORKER_ID} of ${process.env.TPU_NAME}`)'],
      resources: { cpu: 0.5, memory: '64m', device: { kind: 'tpu', variant: 'v5litepod-16' } },
    });
    const job = await client.waitForJob(jobId, { timeoutMs: 120_000 });
    expect(job.state).toBe('SUCCEEDED');
    const info = await client.getJob(jobId, { includeTasks: true });
    expect(info.tasks).toHaveLength(4);
    const created = slicesOf('tpu-v5e-16');
    expect(created).toHaveLength(1);
    expect(new Set(info.tasks.map((t) => t.workerId.replace(/-\d+$/, '')))).toEqual(new Set([created[0]!.sliceId]));
    // Idle for scale_down_idle_ms, the slice is deleted and its workers stop.
    await eventually(async () => (slicesOf('tpu-v5e-16').every((s) => s.state === 'TERMINATED') ? true : undefined), 60_000, 'slice reaped');
    expect(cluster.autoscalerStatus()!.groups.find((g) => g.name === 'tpu-v5e-16')!.createAttempts).toBe(1);
    expect(slicesOf('cpu')).toEqual([]);
  }, 180_000);

  it('leaves a gang no group can hold pending, with the reason', async () => {
    const jobId = await client.launchJob({
      name: '/scale/impossible',
      command: ['true'],
      resources: { cpu: 0.5, memory: '64m', device: { kind: 'tpu', variant: 'v4-32' } },
    });
    const unmet = await eventually(async () => cluster.autoscalerStatus()!.unmet.find((u) => u.jobId === jobId), 10_000, 'unmet demand');
    expect(unmet.tasks).toBe(4);
    expect(unmet.reason).toContain('no scale group');
    expect((await client.getJob(jobId)).state).toBe('PENDING');
    await client.terminateJob(jobId);
  }, 60_000);

  it('backs off after a failed create instead of retrying every evaluation', async () => {
    // Two slices of 4 workers exceed max_workers 6: the second create fails with a quota error.
    const a = await client.launchJob({ name: '/scale/hold-a', command: ['sleep', '30'], resources: { cpu: 0.5, memory: '64m', device: { kind: 'tpu', variant: 'v5litepod-16' } } });
    const b = await client.launchJob({ name: '/scale/hold-b', command: ['sleep', '30'], resources: { cpu: 0.5, memory: '64m', device: { kind: 'tpu', variant: 'v5litepod-16' } } });
    const group = () => cluster.autoscalerStatus()!.groups.find((g) => g.name === 'tpu-v5e-16')!;
    await eventually(async () => (group().consecutiveFailures >= 1 ? true : undefined), 60_000, 'a failed create');
    const attempts = group().createAttempts;
    await new Promise((r) => setTimeout(r, 1500)); // 15 evaluations
    expect(group().createAttempts).toBe(attempts);
    expect(group().backoffUntilMs).toBeGreaterThan(Date.now());
    expect(slicesOf('tpu-v5e-16').some((s) => s.state === 'FAILED')).toBe(true);
    await client.terminateJob(a);
    await client.terminateJob(b);
  }, 120_000);
});
