import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLocalClusterRecord } from '../../src/cli/cli-context.js';
import { eventually } from '../helpers/gate.js';
import { runIris, spawnIris } from '../helpers/cli-process.js';

// `iris cluster start --config` with the local platform: the autoscaler creates every worker.
// Timings are shrunk through the config so a job's slice comes up in well under a second of waiting.
const dirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function writeConfig(dir: string, body: string): string {
  const path = join(dir, 'cluster.yaml');
  writeFileSync(path, body);
  return path;
}

const clusterYaml = (dir: string) => `
controller:
  address: 127.0.0.1:0
  state_dir: ${join(dir, 'state')}
  remote_state_dir: ${join(dir, 'remote')}
  checkpoint_interval_ms: 0
  reconcile_interval_ms: 100
platforms:
  here: { kind: local, max_workers: 2 }
scale_groups:
  - { name: cpu, slice: { kind: cpu }, resources: { cpu: 1, memory_bytes: 1073741824 }, min_slices: 1, max_slices: 2, priority: 10 }
  - { name: spare, slice: { kind: cpu }, resources: { cpu: 1, memory_bytes: 1073741824 }, max_slices: 1, priority: 20 }
autoscaler:
  evaluation_interval_ms: 100
  scale_up_delay_ms: 100
  scale_down_idle_ms: 60000
  startup_grace_ms: 120000
`;

describe('iris cluster start --config', () => {
  it('serves the autoscaler: status lists groups and slices, a job runs, checkpoint writes under remote_state_dir, stop ends it', async () => {
    const dir = tempDir('iris-cluster-config-');
    const env = { IRIS_HOME: join(dir, 'home') };
    await using cluster = spawnIris(['cluster', 'start', '--config', writeConfig(dir, clusterYaml(dir))], { env });
    await cluster.waitForOutput('iris cluster at');
    expect(cluster.stdout()).toContain('scale groups: cpu, spare');
    const address = readLocalClusterRecord(env)!.address;
    expect(cluster.stdout()).toContain(address);

    // min_slices: 1 brings up one cpu slice with no demand at all.
    const ready = await eventually(async () => {
      const r = await runIris(['cluster', 'status', '--json'], { env });
      const status = JSON.parse(r.stdout) as { autoscaler: { enabled: boolean; slices: { group: string; state: string }[] } };
      return status.autoscaler.slices.some((s) => s.group === 'cpu' && s.state === 'READY') ? status : undefined;
    }, 60_000, 'a READY cpu slice');
    expect(ready.autoscaler.enabled).toBe(true);

    const status = await runIris(['cluster', 'status', '--controller', address], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^GROUP\s+PLATFORM\s+PRIORITY/m);
    expect(status.stdout).toMatch(/^cpu\s+here\s+10\s+1\/2\/0\s+1\/1/m);
    expect(status.stdout).toMatch(/^spare\s+here\s+20\s+0\/1\/0\s+0\/0/m);
    expect(status.stdout).toMatch(/^cpu-\S+\s+cpu\s+READY\s+\d+s\s+1\/1/m);

    // A cluster from a config ships jobs as bundles; a one-file workspace keeps that quick.
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'package.json'), JSON.stringify({ name: 'ws', private: true }));
    const job = await runIris(['job', 'run', '--cpu', '0.5', '--memory', '64m', '--', 'node', '-e', "console.log('on a scaled worker')"], { cwd: ws, env: { ...env, IRIS_WORKSPACE: ws } });
    expect(job.code, job.stderr).toBe(0);
    expect(job.stdout).toContain('on a scaled worker');

    const checkpoint = await runIris(['cluster', 'controller', 'checkpoint'], { env });
    expect(checkpoint.code, checkpoint.stderr).toBe(0);
    const url = /checkpoint written to (\S+) \(/.exec(checkpoint.stdout)?.[1];
    expect(url).toBeDefined();
    const written = join(dir, 'remote', 'controller-state');
    const epochs = readdirSync(written);
    expect(epochs).toHaveLength(1);
    expect(existsSync(join(written, epochs[0]!, 'controller.sqlite3.zst'))).toBe(true);
    expect(url).toContain(epochs[0]);

    const stop = await runIris(['cluster', 'stop'], { env });
    expect(stop.code, stop.stderr).toBe(0);
    expect(await cluster.exited).toBe(0);
    expect(readLocalClusterRecord(env)).toBeUndefined();
  }, 180_000);

  it('exits 2 with one line naming the bad field', async () => {
    const dir = tempDir('iris-cluster-config-bad-');
    const config = writeConfig(dir, clusterYaml(dir).replace('max_slices: 2', 'max_slices: -1'));
    const r = await runIris(['cluster', 'start', '--config', config], { env: { IRIS_HOME: join(dir, 'home') } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^iris: cluster config scale_groups\.0\.max_slices: /);
    expect(r.stdout).toBe('');
  });

  it('exits 2 naming the field that is missing', async () => {
    const dir = tempDir('iris-cluster-config-missing-');
    const config = writeConfig(dir, 'controller: { address: 127.0.0.1:0 }\nplatforms: { here: { kind: local } }\n');
    const r = await runIris(['cluster', 'start', '--config', config], { env: { IRIS_HOME: join(dir, 'home') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^iris: cluster config controller\.state_dir: .*\n$/);
  });

  it('reports a controller without an autoscaler as before and refuses a checkpoint without a remote state dir', async () => {
    const dir = tempDir('iris-cluster-config-plain-');
    const env = { IRIS_HOME: join(dir, 'home') };
    await using cluster = spawnIris(['cluster', 'start', '--local', '--workers', '1', '--state-dir', join(dir, 'state')], { env });
    await cluster.waitForOutput('iris local cluster at');
    const status = await runIris(['cluster', 'status'], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('WORKER');
    expect(status.stdout).not.toContain('scale groups');
    const checkpoint = await runIris(['cluster', 'controller', 'checkpoint'], { env });
    expect(checkpoint.code).toBe(1);
    expect(checkpoint.stderr).toMatch(/^iris: .*remote/);
  }, 120_000);
});
