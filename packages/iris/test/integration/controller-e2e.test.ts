import { describe, expect, it } from 'vitest';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';

describe('controller with real workers', () => {
  it('runs a command to SUCCEEDED and stores its stdout', async () => {
    await using cluster = await startLocalCluster({ workers: 1, cpuMillicores: 2000, memoryBytes: 2 ** 31 });
    await using client = cluster.client();
    const jobId = await client.launchJob({ name: '/alice/hello', command: ['node', '-e', "console.log('hi'); console.error('oops')"] });
    const job = await client.waitForJob(jobId, { timeoutMs: 30_000 });
    expect(job).toMatchObject({ state: 'SUCCEEDED', exitCode: 0 });
    const logs = await client.fetchLogs({ jobId });
    expect(logs.entries.map((e) => [e.source, e.data])).toEqual(expect.arrayContaining([['stdout', 'hi'], ['stderr', 'oops']]));
  });

  it('reports a failing command as FAILED with its exit code', async () => {
    await using cluster = await startLocalCluster({ workers: 1, cpuMillicores: 2000, memoryBytes: 2 ** 31 });
    await using client = cluster.client();
    const jobId = await client.launchJob({ name: '/alice/fail', command: ['node', '-e', 'process.exit(3)'] });
    const job = await client.waitForJob(jobId, { timeoutMs: 30_000 });
    expect(job).toMatchObject({ state: 'FAILED', exitCode: 3 });
    expect(job.tasks[0]).toMatchObject({ state: 'FAILED', exitCode: 3 });
    expect(await client.listTasks(jobId)).toMatchObject([{ taskId: `${jobId}/0`, state: 'FAILED', exitCode: 3, attempts: [{ attemptId: 0, state: 'FAILED' }] }]);
    expect(await client.getTask(`${jobId}/0`)).toMatchObject({ state: 'FAILED', exitCode: 3 });
    await expect(client.getTask(`${jobId}/9`)).rejects.toMatchObject({ code: 'IRIS_NOT_FOUND' });
  });

  it("gives every task the cluster's taskEnv and reports the sampled peak memory of a task", async () => {
    await using cluster = await startLocalCluster({ workers: 1, cpuMillicores: 2000, memoryBytes: 2 ** 31, taskEnv: { LOCAL_CLUSTER_PROBE: 'from-cluster' }, usageIntervalMs: 100 });
    await using client = cluster.client();
    // Holds ~64 MB for a while, so the 100 ms sampler sees it.
    const script = "const b = Buffer.alloc(64 * 2 ** 20, 1); console.log(process.env.LOCAL_CLUSTER_PROBE); setTimeout(() => console.log(b.length), 1500)";
    const jobId = await client.launchJob({ name: '/alice/env', command: ['node', '-e', script] });
    const job = await client.waitForJob(jobId, { timeoutMs: 30_000 });
    expect(job).toMatchObject({ state: 'SUCCEEDED', exitCode: 0 });
    const logs = await client.fetchLogs({ jobId });
    expect(logs.entries.map((e) => e.data)).toContain('from-cluster');
    expect((await client.getTask(`${jobId}/0`)).peakMemoryBytes).toBeGreaterThan(64 * 2 ** 20);
  });
});
