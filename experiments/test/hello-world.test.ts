import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runNode } from './helpers/run-process.js';

const runHelloWorld = (args: string[], env: Record<string, string> = {}) => runNode(['hello_world.js', ...args], { env });


describe('experiments/hello_world.js', () => {
  let prefix = '';
  beforeEach(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'hello-world-'));
  });
  afterEach(async () => {
    await rm(prefix, { recursive: true, force: true });
  });

  it('writes numbers and stats under Marin-compatible output paths, then skips both on a second run', async () => {
    const first = await runHelloWorld(['--prefix', prefix]);
    expect(first.code, first.stderr).toBe(0);

    const data = join(prefix, 'hello_world', 'data-d50b06');
    const stats = join(prefix, 'hello_world', 'stats-b5daf3');
    expect(JSON.parse(await readFile(join(data, 'numbers.json'), 'utf8'))).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(await readFile(join(stats, 'stats.json'), 'utf8')).toBe('{"sum": 4950, "min": 0, "max": 99}');
    for (const dir of [data, stats]) {
      expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('SUCCESS');
      const info = JSON.parse(await readFile(join(dir, '.executor_info'), 'utf8')) as Record<string, unknown>;
      expect(info['output_path']).toBe(dir);
    }
    const statsInfo = JSON.parse(await readFile(join(stats, '.executor_info'), 'utf8')) as Record<string, unknown>;
    expect(statsInfo).toMatchObject({
      name: 'hello_world/stats',
      fn_name: 'computeStats',
      config: { input_path: data },
      dependencies: [data],
    });
    const experiments = await readdir(join(prefix, 'experiments'));
    expect(experiments).toHaveLength(1);
    expect(experiments[0]).toMatch(/^hello_world-[0-9a-f]{6}\.json$/);

    const mtime = (await stat(join(stats, 'stats.json'))).mtimeMs;
    const second = await runHelloWorld(['--prefix', prefix]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('2 steps: 0 ran, 2 skipped (already succeeded), 0 failed, 0 not run (dependency failed)');
    expect((await stat(join(stats, 'stats.json'))).mtimeMs).toBe(mtime);
    expect(await readdir(join(prefix, 'experiments'))).toEqual(experiments);
  });

  it('takes its prefix from MARIN_PREFIX when --prefix is absent', async () => {
    const run = await runHelloWorld([], { MARIN_PREFIX: prefix });
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(join(prefix, 'hello_world', 'stats-b5daf3', '.executor_status'), 'utf8')).toBe('SUCCESS');
  });
});
