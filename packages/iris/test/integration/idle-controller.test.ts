import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { IDLE_TICK_CEILING_MS } from '../../src/controller/control-loop.js';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';

describe('an idle controller', () => {
  it('backs its tick off while idle, ticks at its interval while a job runs, and wakes at once for a new job', async () => {
    await using cluster = await startLocalCluster({ workers: 1, reconcileIntervalMs: 10, cpuMillicores: 2000, memoryBytes: 2 ** 31 });
    await using client = cluster.client();
    const ticks = () => cluster.controller.tickCount();
    await sleep(1500); // registration and the first backoff steps

    const idleStart = ticks();
    await sleep(3000);
    const idle = ticks() - idleStart;
    // 3 s at 10 ms would be ~300 ticks; backed off to the ceiling it is ~3 plus the last doubling steps.
    expect(idle).toBeLessThanOrEqual(3000 / IDLE_TICK_CEILING_MS + 10);

    const launched = Date.now();
    const busyStart = ticks();
    const jobId = await client.launchJob({ name: '/alice/sleeper', command: ['node', '-e', 'setTimeout(() => {}, 1500)'] });
    const job = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job.state).toBe('SUCCEEDED');
    const busyMs = Date.now() - launched;
    const busy = ticks() - busyStart;
    // While the job runs the loop keeps its 10 ms interval (bounded loosely: a loaded machine stretches ticks).
    expect(busy).toBeGreaterThan((busyMs / IDLE_TICK_CEILING_MS) * 4);
  });
});
