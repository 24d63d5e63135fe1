import { mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGcs } from '@marin/rigging/testing';
import type { FakeGcsHandle } from '@marin/rigging/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCheckpoints } from '../../src/controller/store/controller-checkpoint.js';
import { startController } from '../../src/cluster/start-controller.js';
import { RegisterRequest } from '../../src/gen/iris/v1/controller.js';
import { LaunchJobRequest } from '../../src/gen/iris/v1/controller.js';

let gcs: FakeGcsHandle | undefined;
let dir: string;

beforeAll(async () => {
  gcs = await startFakeGcs({ setEnv: true });
  dir = mkdtempSync(join(tmpdir(), 'iris-ckpt-'));
});

afterAll(async () => {
  await gcs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every job, task and worker row, as the controller stores them. */
function snapshot(state: Awaited<ReturnType<typeof startController>>['state']): unknown {
  const db = state.store.db;
  return {
    jobs: db.prepare('SELECT job_id, state, request FROM jobs ORDER BY job_id').all(),
    tasks: db.prepare('SELECT * FROM tasks ORDER BY task_id').all(),
    workers: db.prepare('SELECT worker_id, boot_id, address, attributes FROM workers ORDER BY worker_id').all(),
  };
}

async function populated(stateDir: string, remoteStateDir: string) {
  const c = await startController({ stateDir, remoteStateDir, autoTick: false, dashboardBind: null, warn: () => undefined });
  c.state.register(RegisterRequest.fromPartial({ workerId: 'w-0', bootId: 'b-0', address: '127.0.0.1:1', metadata: { hostname: 'h', cpuMillicores: 4000, memoryBytes: 1 << 30, attributes: {} } }));
  for (const name of ['a', 'b']) c.state.launchJob(LaunchJobRequest.fromPartial({ name: `/ckpt/${name}`, replicas: 2, entrypoint: { run: { argv: ['true'] } }, resources: { cpuMillicores: 100, memoryBytes: 1 << 20 } }));
  await c.tick();
  return c;
}

describe('controller checkpoints on gs:// (fake-gcs-server)', () => {
  it('restores every job, task and worker after the local database is deleted', async () => {
    await gcs!.createBucket('iris-ckpt-a');
    const remote = 'gs://iris-ckpt-a/cluster';
    const stateDir = join(dir, 'a');
    const first = await populated(stateDir, remote);
    const before = snapshot(first.state);
    const info = await first.checkpoint();
    expect(info.url).toMatch(/^gs:\/\/iris-ckpt-a\/cluster\/controller-state\/\d+\/controller\.sqlite3\.zst$/);
    await first.close();
    expect(await listCheckpoints(remote)).toEqual([info.createdAtMs]);

    for (const suffix of ['', '-wal', '-shm']) rmSync(join(stateDir, `controller.sqlite3${suffix}`), { force: true });
    const second = await startController({ stateDir, remoteStateDir: remote, autoTick: false, dashboardBind: null, warn: () => undefined });
    try {
      expect(snapshot(second.state)).toEqual(before);
    } finally {
      await second.close();
    }
  });

  it('detects a corrupt local database with quick_check and restores it the same way', async () => {
    await gcs!.createBucket('iris-ckpt-b');
    const remote = 'gs://iris-ckpt-b/cluster';
    const stateDir = join(dir, 'b');
    const first = await populated(stateDir, remote);
    const before = snapshot(first.state);
    await first.checkpoint();
    await first.close();

    const dbPath = join(stateDir, 'controller.sqlite3');
    const bytes = readFileSync(dbPath);
    bytes.fill(0x5a, 4096, bytes.length); // every page after the first
    writeFileSync(dbPath, bytes);
    const second = await startController({ stateDir, remoteStateDir: remote, autoTick: false, dashboardBind: null, warn: () => undefined });
    try {
      expect(snapshot(second.state)).toEqual(before);
    } finally {
      await second.close();
    }
    expect(existsSync(dbPath)).toBe(true);
  });

  it('prunes checkpoints older than 3 days but never the newest', async () => {
    await gcs!.createBucket('iris-ckpt-c');
    const remote = 'gs://iris-ckpt-c/cluster';
    let now = Date.UTC(2026, 0, 1);
    const c = await startController({ stateDir: join(dir, 'c'), remoteStateDir: remote, autoTick: false, dashboardBind: null, clock: () => now, warn: () => undefined });
    try {
      const old = await c.checkpoint();
      now += 24 * 3600 * 1000;
      const mid = await c.checkpoint();
      now += 3 * 24 * 3600 * 1000;
      const last = await c.checkpoint();
      expect(await listCheckpoints(remote)).toEqual([last.createdAtMs, mid.createdAtMs]);
      expect(old.createdAtMs).toBeLessThan(mid.createdAtMs);
    } finally {
      await c.close();
    }
  });
});
