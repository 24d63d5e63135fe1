import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IRIS_CLI, NODE_FLAGS, REPO_ROOT, runNode } from './helpers/run-process.js';


async function expectHelloWorldOutputs(prefix: string): Promise<void> {
  const data = join(prefix, 'hello_world', 'data-d50b06');
  const stats = join(prefix, 'hello_world', 'stats-b5daf3');
  expect(JSON.parse(await readFile(join(data, 'numbers.json'), 'utf8'))).toEqual(Array.from({ length: 100 }, (_, i) => i));
  expect(await readFile(join(stats, 'stats.json'), 'utf8')).toBe('{"sum": 4950, "min": 0, "max": 99}');
  for (const dir of [data, stats]) expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('SUCCESS');
}

describe('experiments/hello_world.js remotely', () => {
  let prefix = '';
  let home = '';
  beforeEach(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'hello-world-remote-'));
    home = await mkdtemp(join(tmpdir(), 'hello-world-iris-home-'));
  });
  afterEach(async () => {
    await rm(prefix, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  it('--remote-stats runs the stats step as a Fray job with the same output paths as the local run', async () => {
    const r = await runNode(['hello_world.js', '--prefix', prefix, '--remote-stats'], { env: { IRIS_HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Step hello_world\/stats-b5daf3 submitted as Fray job local-hello_world-stats-b5daf3-[0-9a-f]{8}/);
    await expectHelloWorldOutputs(prefix);
  });

  it('`iris job run -- node experiments/hello_world.js` runs on the embedded cluster with the local output paths', async () => {
    const r = await runNode([IRIS_CLI, 'job', 'run', '--', 'node', ...NODE_FLAGS, 'experiments/hello_world.js', '--prefix', prefix], {
      cwd: REPO_ROOT,
      env: { IRIS_HOME: home },
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    await expectHelloWorldOutputs(prefix);
  });

  it('inside an Iris task, --remote-stats submits the stats step as a child job of the experiment', async () => {
    const r = await runNode([IRIS_CLI, 'job', 'run', '--', 'node', ...NODE_FLAGS, 'experiments/hello_world.js', '--prefix', prefix, '--remote-stats'], {
      cwd: REPO_ROOT,
      env: { IRIS_HOME: home },
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const top = r.stdout.split('\n')[0]!.trim();
    expect(top).toMatch(/^\/[^/]+\/[^/]+$/);
    // The executor's log lines (and its child job's) are streamed back as the tasks' output.
    const output = `${r.stdout}\n${r.stderr}`;
    expect(output).toContain(`submitted as Fray job ${top}/hello_world-stats-b5daf3-`);
    expect(output).toMatch(/task=hello_world-stats-b5daf3-[0-9a-f]{8}\/0 \| .*Worker running step hello_world\/stats-b5daf3/);
    await expectHelloWorldOutputs(prefix);
  });
});
