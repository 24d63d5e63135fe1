import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import { startController } from '../../src/cluster/start-controller.js';
import { startWorker } from '../../src/worker/worker-daemon.js';
import { spawnIris } from '../helpers/cli-process.js';
import { createGate, eventually } from '../helpers/gate.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'iris-faults-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function workerArgs(controller: string, id: string): string[] {
  return ['worker', 'start', '--controller', controller, '--worker-id', id, '--cache-dir', join(tempDir(), id), '--cpu', '2', '--memory', '2g'];
}

describe('faults', () => {
  it('reruns the task of a SIGKILLed worker elsewhere after the grace period, without spending the failure budget', async () => {
    await using controller = await startController({ reconcileIntervalMs: 200, reconcileRpcTimeoutMs: 1000, workerUnreachableGraceMs: 1500, minUnreachableFailures: 2 });
    await using client = createIrisClient({ address: controller.address });
    using gate = createGate();
    await using w1 = spawnIris(workerArgs(controller.address, 'w1'));
    await w1.waitForOutput('iris worker w1');
    const jobId = await client.launchJob({ name: '/faults/survivor', command: gate.command(), resources: { cpu: 1 } });
    await eventually(async () => ((await client.getJob(jobId, { includeTasks: true })).tasks[0]?.state === 'RUNNING' ? true : undefined), 60_000, 'running on w1');
    await using w2 = spawnIris(workerArgs(controller.address, 'w2'));
    await w2.waitForOutput('iris worker w2');
    process.kill(-w1.child.pid!, 'SIGKILL');
    await w1.exited;
    const moved = await eventually(async () => {
      const t = (await client.getJob(jobId, { includeTasks: true })).tasks[0]!;
      return t.workerId === 'w2' && t.state === 'RUNNING' ? t : undefined;
    }, 60_000, 'task rerun on w2');
    expect(moved).toMatchObject({ failureCount: 0, preemptionCount: 1 });
    expect(moved.attempts[0]).toMatchObject({ workerId: 'w1', state: 'WORKER_FAILED', isWorkerFailure: true });
    // On a loaded machine an assignment can be handed back unstarted before one sticks; none of those spends a budget.
    expect(moved.attempts.filter((a) => a.state === 'FAILED')).toEqual([]);
    gate.open();
    const job = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job).toMatchObject({ state: 'SUCCEEDED', failureCount: 0, preemptionCount: 1 });
  }, 180_000);

  it('loses no job when the controller is SIGKILLed mid-job and restarted; running attempts continue', async () => {
    const port = await freePort();
    const stateDir = tempDir();
    const address = `127.0.0.1:${port}`;
    const env = { IRIS_RECONCILE_INTERVAL_MS: '200' };
    const serve = () => spawnIris(['controller', 'serve', '--bind', address, '--state-dir', stateDir], { env });
    await using first = serve();
    await first.waitForOutput('iris controller at');
    await using worker = await startWorker({ controllerAddress: address, workerId: 'steady', cacheDir: tempDir(), cpuMillicores: 2000, memoryBytes: 2 ** 31, registerRetryInitialMs: 100 });
    await using client = createIrisClient({ address });
    using gate = createGate();
    const done = await client.launchJob({ name: '/restart/done', command: ['node', '-e', "console.log('early')"], resources: { cpu: 0.5 } });
    expect((await client.waitForJob(done, { timeoutMs: 60_000 })).state).toBe('SUCCEEDED');
    const jobId = await client.launchJob({ name: '/restart/long', command: gate.command(), resources: { cpu: 0.5 } });
    const waiting = await client.launchJob({ name: '/restart/too-big', command: ['true'], resources: { cpu: 64 } });
    await eventually(async () => ((await client.getJob(jobId, { includeTasks: true })).tasks[0]?.state === 'RUNNING' ? true : undefined), 60_000, 'running');

    process.kill(-first.child.pid!, 'SIGKILL');
    await first.exited;
    await using second = serve();
    await second.waitForOutput('iris controller at');

    expect((await client.getJob(done)).state).toBe('SUCCEEDED');
    expect((await client.getJob(waiting)).state).toBe('PENDING');
    expect((await client.fetchLogs({ jobId: done })).entries.map((e) => e.data)).toContain('early');
    gate.open();
    const job = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job.state).toBe('SUCCEEDED');
    expect(job.tasks[0]!.attempts).toHaveLength(1);
    expect(worker.workerId).toBe('steady');
    await client.terminateJob(waiting);
  }, 180_000);
});
