import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import type { IrisClient } from '../../src/client/iris-client.js';
import type { JobInfo, JobSpec } from '../../src/index.js';
import { spawnIris, runIris } from '../helpers/cli-process.js';
import type { CliProcess } from '../helpers/cli-process.js';
import { createGate, eventually } from '../helpers/gate.js';
import { startControllerProcess } from '../helpers/worker-cluster.js';
import type { ControllerProcess } from '../helpers/worker-cluster.js';

// A real controller process and 9 real worker processes (`iris worker start`): a fleet of two
// simulated v5litepod-16 slices (4 workers each) and one CPU worker.
let controller: ControllerProcess;
let client: IrisClient;
let cacheRoot: string;
const workers: CliProcess[] = [];
beforeAll(async () => {
  controller = await startControllerProcess({ reconcileIntervalMs: 100 });
  client = createIrisClient({ address: controller.address });
  cacheRoot = mkdtempSync(join(tmpdir(), 'iris-preempt-'));
  const base = (id: string) => ['worker', 'start', '--controller', controller.address, '--worker-id', id, '--cache-dir', join(cacheRoot, id), '--cpu', '2', '--memory', '2g'];
  for (const slice of ['slice-a', 'slice-b']) {
    for (let i = 0; i < 4; i++) workers.push(spawnIris([...base(`${slice}-${i}`), '--tpu', 'v5litepod-16', '--tpu-name', slice, '--tpu-worker-id', String(i)]));
  }
  workers.push(spawnIris(base('cpu-0')));
  await Promise.all(workers.map((w) => w.waitForOutput('iris worker', 120_000)));
  await eventually(async () => ((await client.listWorkers()).length === 9 ? true : undefined), 60_000, '9 registered workers');
}, 180_000);
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  await client?.close();
  await controller?.stop();
  if (cacheRoot) rmSync(cacheRoot, { recursive: true, force: true });
}, 120_000);

/** A task that says when it gets SIGTERM (and then exits 143), else waits for the gate. */
function sigtermAware(gatePath: string): string[] {
  return [
    'node',
    '-e',
    `process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(143); }); console.log('ready'); const fs = require('fs'); setInterval(() => { if (fs.existsSync(${JSON.stringify(gatePath)})) process.exit(0); }, 50);`,
  ];
}

const tpuJob = (name: string, command: string[], priority: JobSpec['priority']): JobSpec => ({
  name,
  command,
  priority,
  resources: { cpu: 0.1, memory: '64m', device: { kind: 'tpu', variant: 'v5litepod-16' } },
});

async function allRunning(jobId: string): Promise<JobInfo> {
  return eventually(async () => {
    const j = await client.getJob(jobId, { includeTasks: true });
    return j.tasks.length > 0 && j.tasks.every((t) => t.state === 'RUNNING') ? j : undefined;
  }, 60_000, `${jobId} running`);
}

const sliceOf = (job: JobInfo): Set<string> => new Set(job.tasks.map((t) => t.workerId.replace(/-\d+$/, '')));

describe('preemption on a simulated TPU fleet', () => {
  it('a PRODUCTION gang on a full v5litepod-16 fleet preempts one BATCH gang\'s whole slice (SIGTERM first) and runs; the BATCH job resumes after', async () => {
    using batchGate = createGate();
    using prodGate = createGate();
    const b1 = await client.launchJob(tpuJob('/bob/batch-1', sigtermAware(batchGate.path), 'BATCH'));
    const b2 = await client.launchJob(tpuJob('/bob/batch-2', sigtermAware(batchGate.path), 'BATCH'));
    const [j1, j2] = [await allRunning(b1), await allRunning(b2)];
    expect(new Set([...sliceOf(j1), ...sliceOf(j2)])).toEqual(new Set(['slice-a', 'slice-b']));

    const prod = await client.launchJob(tpuJob('/alice/prod', prodGate.command(), 'PRODUCTION'));
    const running = await allRunning(prod);
    expect(running.effectivePriority).toBe('PRODUCTION');
    expect(sliceOf(running).size).toBe(1);

    // Exactly one BATCH job lost its slice, all four members at once, each charged one preemption.
    const after = await Promise.all([b1, b2].map((id) => client.getJob(id, { includeTasks: true })));
    const victim = after.find((j) => j.tasks.some((t) => t.preemptionCount > 0))!;
    const survivor = after.find((j) => j !== victim)!;
    expect(sliceOf(victim)).toEqual(sliceOf(running));
    expect(victim.tasks.map((t) => [t.state, t.preemptionCount, t.error])).toEqual(
      [0, 1, 2, 3].map(() => ['PENDING', 1, 'Preempted by /alice/prod']),
    );
    expect(survivor.tasks.every((t) => t.state === 'RUNNING' && t.preemptionCount === 0)).toBe(true);
    expect(victim.tasks.every((t) => t.attempts[0]?.state === 'KILLED')).toBe(true);
    const logs = await client.fetchLogs({ jobId: victim.jobId });
    expect(logs.entries.filter((e) => e.data === 'got SIGTERM')).toHaveLength(4);

    // The PRODUCTION job finishes; the preempted BATCH job takes the slice back and completes.
    prodGate.open();
    expect((await client.waitForJob(prod, { timeoutMs: 60_000 })).state).toBe('SUCCEEDED');
    const resumed = await allRunning(victim.jobId);
    expect(resumed.tasks.every((t) => t.currentAttemptId === 1)).toBe(true);
    batchGate.open();
    for (const id of [b1, b2]) expect((await client.waitForJob(id, { timeoutMs: 60_000 })).state).toBe('SUCCEEDED');
  }, 240_000);

  it('a budget-exhausted user\'s INTERACTIVE job is demoted to BATCH, and is the one another user\'s INTERACTIVE job preempts', async () => {
    using gate = createGate();
    // One core and no accelerator is worth 5: carol's budget covers exactly one such task.
    const set = await runIris(['user', 'budget', 'set', 'carol', '--limit', '5', '--controller', controller.address, '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ user: 'carol', budgetLimit: 5, maxBand: null });

    const cpuJob = (name: string): JobSpec => ({
      name,
      command: sigtermAware(gate.path),
      resources: { cpu: 1, memory: '64m' },
      constraints: [{ key: 'device-type', op: 'EQ', value: 'cpu' }],
    });
    const first = await client.launchJob(cpuJob('/carol/first'));
    await allRunning(first);
    expect((await client.getUserBudget('carol')).spend).toBe(5);
    const second = await client.launchJob(cpuJob('/carol/second'));
    await allRunning(second);
    const demoted = await client.getJob(second);
    expect([demoted.priority, demoted.effectivePriority]).toEqual(['INTERACTIVE', 'BATCH']);
    expect((await client.getUserBudget('carol')).spend).toBe(5);

    // The CPU worker is full; dave's INTERACTIVE job evicts carol's demoted job, not her INTERACTIVE one.
    const dave = await client.launchJob(cpuJob('/dave/notebook'));
    await allRunning(dave);
    const [kept, preempted] = await Promise.all([first, second].map((id) => client.getJob(id, { includeTasks: true })));
    expect(kept!.tasks[0]).toMatchObject({ state: 'RUNNING', preemptionCount: 0 });
    expect(preempted!.tasks[0]).toMatchObject({ state: 'PENDING', preemptionCount: 1, error: 'Preempted by /dave/notebook' });

    const listed = await runIris(['user', 'budget', 'list', '--controller', controller.address, '--json']);
    expect((JSON.parse(listed.stdout) as Array<{ user: string; spend: number }>).find((b) => b.user === 'carol')).toMatchObject({ spend: 5 });
    gate.open();
    for (const id of [dave, first, second]) expect((await client.waitForJob(id, { timeoutMs: 60_000 })).state).toBe('SUCCEEDED');
  }, 120_000);
});
