import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClusterConfig } from '../../src/autoscaler/cluster-config.js';
import { startCluster } from '../../src/cluster/start-cluster.js';
import { createIrisClient } from '../../src/client/iris-client.js';
import { startTestSshd } from '../helpers/sshd.js';
import type { TestSshd } from '../helpers/sshd.js';
import { eventually } from '../helpers/gate.js';
import { isProcessAlive } from '@marin/rigging';

// The `manual` platform against a real sshd on 127.0.0.1: the controller starts worker daemons on the
// "host" over SSH (the same machine, so this checkout's CLI runs there from source), runs a job on
// them and stops them when the cluster closes.
const IRIS_BIN = fileURLToPath(new URL('../../bin/iris.js', import.meta.url));
const TSX_LOADER = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs')).href;

let sshd: TestSshd;
let dir: string;
beforeAll(async () => {
  sshd = await startTestSshd();
  dir = mkdtempSync(join(tmpdir(), 'iris-manual-'));
}, 30_000);
afterAll(async () => {
  await sshd?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('manual platform over SSH', () => {
  it('starts a worker on the host, runs a job there, and stops it with the cluster', async () => {
    const remoteDir = join(dir, 'remote');
    const config = parseClusterConfig({
      controller: { address: '127.0.0.1:0', state_dir: join(dir, 'state'), reconcile_interval_ms: 100, checkpoint_interval_ms: 0 },
      platforms: {
        hosts: {
          kind: 'manual',
          hosts: ['127.0.0.1'],
          user: userInfo().username,
          key_file: sshd.keyFile,
          port: sshd.port,
          iris_command: `${process.execPath} --conditions=@marin/source --import ${TSX_LOADER} ${IRIS_BIN}`,
          remote_dir: remoteDir,
          ssh_options: [...sshd.sshOptions],
        },
      },
      scale_groups: [{ name: 'ssh', slice: { kind: 'cpu' }, resources: { cpu: 1, memory_bytes: 1 << 30 }, min_slices: 0, max_slices: 1 }],
      autoscaler: { evaluation_interval_ms: 100, scale_up_delay_ms: 100, scale_down_idle_ms: 60_000, startup_grace_ms: 120_000 },
    });
    const cluster = await startCluster(config, { dashboardBind: null, warn: () => undefined });
    let pid = 0;
    let sliceId = '';
    try {
      await using client = createIrisClient({ address: cluster.address });
      const jobId = await client.launchJob({ name: '/ssh/hello', command: ['node', '-e', "console.log('hello from ' + process.env.IRIS_WORKER_ID)"], resources: { cpu: 0.5, memory: '64m' } });
      const job = await client.waitForJob(jobId, { timeoutMs: 120_000 });
      expect(job.state, JSON.stringify(job)).toBe('SUCCEEDED');

      // The worker can register (and run the job) before the platform's own readiness check over SSH returns.
      const slice = await eventually(() => cluster.autoscalerStatus()!.slices.find((s) => s.group === 'ssh' && s.state === 'READY'), 30_000, 'READY slice');
      sliceId = slice.sliceId;
      const workers = await client.listWorkers();
      expect(workers.map((w) => w.workerId)).toEqual([`${sliceId}-0`]);
      expect(workers[0]!.attributes['scale-group']).toBe('ssh');
      const info = await client.getJob(jobId, { includeTasks: true });
      expect(info.tasks[0]!.workerId).toBe(`${sliceId}-0`);
      const logs = await client.fetchLogs({ jobId });
      expect(logs.entries.map((e) => e.data).join('\n')).toContain(`hello from ${sliceId}-0`);

      // The worker runs from the slice's directory on the host, started through sshd.
      pid = Number(readFileSync(join(remoteDir, sliceId, '0', 'worker.pid'), 'utf8'));
      expect(isProcessAlive(pid)).toBe(true);
    } finally {
      await cluster.close();
    }
    await eventually(() => (isProcessAlive(pid) ? undefined : true), 10_000, 'worker stopped');
    expect(existsSync(join(remoteDir, sliceId))).toBe(false);
    expect(existsSync(remoteDir) ? readdirSync(remoteDir) : []).toEqual([]);
  }, 180_000);
});
