import { describe, expect, it } from 'vitest';
import { pollUntil } from '@marin/rigging';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';
import { IRIS_SOURCE_ARGV } from '../helpers/cli-process.js';

/** A parent task that runs `iris job run --cpu <childCpu> -- node -e <child>` and waits for it. */
function parentCommand(childCpu: number, child: string): string[] {
  return [...IRIS_SOURCE_ARGV, 'job', 'run', '--cpu', String(childCpu), '--memory', '64m', '--', 'node', '-e', child];
}

describe('parents that wait for their children on a small local cluster', () => {
  it('four 0.5-CPU parents each waiting for a 1-CPU child all finish on one 2-CPU worker', async () => {
    await using cluster = await startLocalCluster({ workers: 1, cpuMillicores: 2000, memoryBytes: 2 ** 32 });
    await using client = cluster.client();
    const parents: string[] = [];
    for (let i = 0; i < 4; i++) {
      parents.push(
        await client.launchJob({ name: `/alice/experiment-${i}`, command: parentCommand(1, 'setTimeout(() => {}, 200)'), resources: { cpu: 0.5, memory: '256m' } }),
      );
    }
    for (const id of parents) {
      const job = await client.waitForJob(id, { timeoutMs: 120_000 });
      expect(job.state, `${id}: ${job.error}`).toBe('SUCCEEDED');
    }
    const children = (await client.listJobs()).filter((j) => j.parentJobId !== null);
    expect(children).toHaveLength(4);
    expect(children.every((c) => c.state === 'SUCCEEDED')).toBe(true);
  }, 180_000);

  it('a running parent says which child it waits for and why', async () => {
    await using cluster = await startLocalCluster({ workers: 1, cpuMillicores: 2000, memoryBytes: 2 ** 32 });
    await using client = cluster.client();
    const parent = await client.launchJob({ name: '/alice/waits', command: parentCommand(3, '0'), resources: { cpu: 0.5, memory: '256m' } });
    const seen = await pollUntil(async () => (await client.getJob(parent)).waitingFor !== '', { timeoutMs: 60_000, interval: 100 });
    expect(seen).toBe(true);
    const waiting = await client.getJob(parent);
    expect(waiting.state).toBe('RUNNING');
    const child = (await client.listJobs()).find((j) => j.parentJobId === parent)!;
    expect(child.state).toBe('PENDING');
    expect(waiting.waitingFor).toBe(`child job ${child.jobId} (pending: ${child.pendingReason})`);
    expect(child.pendingReason).not.toBe('');
    await client.terminateJob(parent);
  }, 120_000);
});
