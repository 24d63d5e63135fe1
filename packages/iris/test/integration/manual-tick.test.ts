import { describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import { startWorker } from '../../src/worker/worker-daemon.js';
import { startManualTickController, startTestCluster } from '../../src/testing/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('@marin/iris/testing', () => {
  it('a manual-tick controller changes state only when ticked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'iris-manual-'));
    try {
      await using controller = await startManualTickController();
      await using worker = await startWorker({ controllerAddress: controller.address, workerId: 'm', cacheDir: dir, cpuMillicores: 1000, memoryBytes: 2 ** 30, registerRetryInitialMs: 100 });
      await using client = createIrisClient({ address: controller.address });
      const id = await client.launchJob({ name: '/m/j', command: ['node', '-e', '0'] });
      await new Promise((r) => setTimeout(r, 300));
      expect((await client.getJob(id)).state).toBe('PENDING');
      await controller.tick();
      expect((await client.getJob(id, { includeTasks: true })).tasks[0]?.state).not.toBe('PENDING');
      for (let i = 0; i < 200 && (await client.getJob(id)).state !== 'SUCCEEDED'; i++) {
        await controller.tick();
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await client.getJob(id)).state).toBe('SUCCEEDED');
      expect(worker.workerId).toBe('m');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('10 concurrent clients × 50 submissions all persist, in FIFO order per client', async () => {
    await using cluster = await startTestCluster('single', { workers: 0 });
    const clients = Array.from({ length: 10 }, () => cluster.client());
    try {
      await Promise.all(
        clients.map(async (c, ci) => {
          for (let i = 0; i < 50; i++) await c.launchJob({ name: `/c${ci}/j${String(i).padStart(2, '0')}`, command: ['true'] });
        }),
      );
      const jobs = await clients[0]!.listJobs({ limit: 500 });
      expect(jobs).toHaveLength(500);
      for (let ci = 0; ci < 10; ci++) {
        const mine = jobs.filter((j) => j.jobId.startsWith(`/c${ci}/`));
        expect(mine.map((j) => j.jobId)).toEqual(Array.from({ length: 50 }, (_, i) => `/c${ci}/j${String(i).padStart(2, '0')}`));
        const times = mine.map((j) => j.submittedAtMs);
        expect(times).toEqual([...times].sort((a, b) => a - b));
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 120_000);
});
