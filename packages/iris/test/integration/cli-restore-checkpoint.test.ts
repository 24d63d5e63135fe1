import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startController } from '../../src/cluster/start-controller.js';
import { LaunchJobRequest } from '../../src/gen/iris/v1/controller.js';
import { runIris } from '../helpers/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'iris-restore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const launch = (c: Awaited<ReturnType<typeof startController>>, name: string) =>
  c.state.launchJob(LaunchJobRequest.fromPartial({ name: `/ops/${name}`, entrypoint: { run: { argv: ['true'] } }, resources: { cpuMillicores: 100, memoryBytes: 1 << 20 } }));
const jobIds = (c: Awaited<ReturnType<typeof startController>>) => (c.state.store.db.prepare('SELECT job_id FROM jobs ORDER BY job_id').all() as { job_id: string }[]).map((r) => r.job_id);

describe('iris cluster controller restore-checkpoint', () => {
  it('lists checkpoints newest first and restores a chosen one into a stopped controller, keeping the replaced database', async () => {
    const remote = join(dir, 'remote');
    const stateDir = join(dir, 'state');
    const env = { IRIS_HOME: join(dir, 'home') };
    const c = await startController({ stateDir, remoteStateDir: remote, autoTick: false, dashboardBind: null, warn: () => undefined });
    launch(c, 'first');
    const older = await c.checkpoint();
    await sleep(5);
    launch(c, 'second');
    const newer = await c.checkpoint();
    await c.close();

    const list = await runIris(['cluster', 'controller', 'restore-checkpoint', '--remote-state-dir', remote, '--list', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { checkpoint: string }[]).map((e) => e.checkpoint)).toEqual([String(newer.createdAtMs), String(older.createdAtMs)]);

    const restore = await runIris(['cluster', 'controller', 'restore-checkpoint', '--remote-state-dir', remote, '--checkpoint', String(older.createdAtMs), '--state-dir', stateDir], { env });
    expect(restore.code, restore.stderr).toBe(0);
    const replaced = /kept as (\S+)$/.exec(restore.stdout.trim())?.[1];
    expect(replaced !== undefined && existsSync(replaced)).toBe(true);

    const restored = await startController({ stateDir, autoTick: false, dashboardBind: null, warn: () => undefined });
    try {
      expect(jobIds(restored)).toEqual(['/ops/first']);
    } finally {
      await restored.close();
    }
  });

  it('refuses an unknown checkpoint and a restore without a state dir, changing nothing', async () => {
    const remote = join(dir, 'remote');
    const env = { IRIS_HOME: join(dir, 'home') };
    const unknown = await runIris(['cluster', 'controller', 'restore-checkpoint', '--remote-state-dir', remote, '--checkpoint', '12345', '--state-dir', join(dir, 'other')], { env });
    expect(unknown.code).toBe(1);
    expect(existsSync(join(dir, 'other', 'controller.sqlite3'))).toBe(false);
    const noDir = await runIris(['cluster', 'controller', 'restore-checkpoint', '--remote-state-dir', remote, '--checkpoint', '12345'], { env });
    expect(noDir.code).toBe(2);
  });
});
