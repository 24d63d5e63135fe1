import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';
import type { LocalClusterHandle } from '../../src/cluster/local-cluster.js';
import { packageVersion } from '../../src/cli/program.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

// The bundle `bin/iris.js` prefers, built fresh into a directory inside the package (as dist/ is, so
// the external native peers and the package's own exports resolve the same way).
let outDir: string;
let home: string;
let cluster: LocalClusterHandle;

beforeAll(async () => {
  outDir = mkdtempSync(join(PACKAGE_ROOT, '.cli-bundle-test-'));
  execFileSync(process.execPath, [join(PACKAGE_ROOT, 'scripts/build-cli.mjs'), outDir], { stdio: 'inherit' });
  writeFileSync(join(outDir, 'run.mjs'), "const { main } = await import('./iris-cli.js');\nprocess.exitCode = await main(process.argv.slice(2));\n");
  home = mkdtempSync(join(tmpdir(), 'iris-cli-bundle-'));
  cluster = await startLocalCluster({ workers: 1, dashboardBind: null });
}, 60_000);
afterAll(async () => {
  await cluster?.close();
  rmSync(outDir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function runBundle(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(outDir, 'run.mjs'), ...args], { cwd: PACKAGE_ROOT, env: { ...process.env, IRIS_CONTROLLER_ADDRESS: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

describe('the bundled CLI', () => {
  it('prints the package version', async () => {
    const r = await runBundle(['--version'], { IRIS_HOME: home });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(packageVersion());
  });

  it('runs a job on a running cluster found through the local cluster record', async () => {
    writeFileSync(join(home, 'local-cluster.json'), JSON.stringify({ address: cluster.address, pid: process.pid, stateDir: home, startedAtMs: Date.now() }));
    try {
      const r = await runBundle(['job', 'run', '--json', '--', 'node', '-e', 'process.exit(0)'], { IRIS_HOME: home });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ state: 'SUCCEEDED', exitCode: 0 });
    } finally {
      rmSync(join(home, 'local-cluster.json'), { force: true });
    }
  });

  it('starts an embedded cluster (controller with SQLite, worker, task supervisor) when none is configured', async () => {
    const embeddedHome = mkdtempSync(join(tmpdir(), 'iris-cli-bundle-embedded-'));
    try {
      const ok = await runBundle(['job', 'run', '--', 'node', '-e', "console.log('from-bundle')"], { IRIS_HOME: embeddedHome });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain('from-bundle');
      const failed = await runBundle(['job', 'run', '--json', '--', 'node', '-e', 'process.exit(3)'], { IRIS_HOME: embeddedHome });
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({ state: 'FAILED', exitCode: 3 });
    } finally {
      rmSync(embeddedHome, { recursive: true, force: true });
    }
  });

  it('answers an unreachable controller with one line and exit code 1', async () => {
    const r = await runBundle(['job', 'list', '--controller', '127.0.0.1:1'], { IRIS_HOME: home });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
