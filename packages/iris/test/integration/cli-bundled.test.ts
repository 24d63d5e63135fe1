import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestCluster } from '../../src/testing/index.js';
import { runIris } from '../helpers/cli-process.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'iris-cli-ws-'));
  dirs.push(root);
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({
      name: 'ws',
      private: true,
      scripts: { 'iris:setup': "node -e \"require('fs').writeFileSync('built.txt', 'built by setup')\"" },
      marin: { dependencyGroups: { empty: [] } },
    }),
  );
  writeFileSync(join(root, 'main.js'), "console.log('main sees ' + require('fs').readFileSync('built.txt', 'utf8'));\n");
  return root;
}

describe('iris job run against a remote controller (bundled mode)', () => {
  it('ships the workspace as a bundle, runs setup in BUILDING with build logs, then the command', async () => {
    await using cluster = await startTestCluster('single');
    const root = workspace();
    const r = await runIris(['job', 'run', '--controller', cluster.address, '--', 'node', 'main.js'], { cwd: root, env: { IRIS_HOME: root, IRIS_WORKSPACE: root } });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('main sees built by setup');
    expect(r.stdout).toMatch(/\[build\]/);
  }, 180_000);

  it('rejects an unknown --extra dependency group with a usage error', async () => {
    await using cluster = await startTestCluster('single', { workers: 0 });
    const root = workspace();
    const r = await runIris(['job', 'run', '--controller', cluster.address, '--extra', 'nope', '--', 'node', 'main.js'], { cwd: root, env: { IRIS_HOME: root, IRIS_WORKSPACE: root } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown dependency group "nope"');
  }, 60_000);
});
