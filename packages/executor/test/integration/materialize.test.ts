import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutorStep, materialize, thisOutputPath, versioned } from '@marin/executor';
import type { StepContext } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { listTree } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const saved = process.env['MARIN_LEASE_POLL_S'];
beforeAll(() => {
  process.env['MARIN_LEASE_POLL_S'] = '0.1';
});
afterAll(() => {
  if (saved === undefined) delete process.env['MARIN_LEASE_POLL_S'];
  else process.env['MARIN_LEASE_POLL_S'] = saved;
});

function tokenizeStep(counter: { runs: number }): ExecutorStep {
  return new ExecutorStep({
    name: 'tok',
    config: { vocab: versioned(32000) },
    fn: async (_c, ctx: StepContext) => {
      counter.runs++;
      await sleep(300);
      await writeFile(join(ctx.outputPath, 'tokens.bin'), 'tokens');
    },
  });
}

describe('materialize()', () => {
  it('returns an equal config for a placeholder-free config and creates no experiments/ directory', async () => {
    await using tmp = await makeTempDir();
    const config = { lr: 0.1, name: 'x', nested: { xs: [1, 2] } };
    expect(await materialize(config, { prefix: tmp.path })).toEqual(config);
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('runs the upstream step once, substitutes its output path, passes outputPath through and honours prefix', async () => {
    await using tmp = await makeTempDir();
    const counter = { runs: 0 };
    const tok = tokenizeStep(counter);
    const config = { tokens: tok.cd('tokens.bin'), output_path: thisOutputPath('ckpt'), seed: 7 };
    const resolved = (await materialize(config, { prefix: tmp.path, outputPath: '/out/train', logger: captureLogger() })) as Record<string, unknown>;
    expect(counter.runs).toBe(1);
    expect(resolved).toEqual({
      tokens: expect.stringMatching(new RegExp(`^${tmp.path}/tok-[0-9a-f]{6}/tokens\\.bin$`)),
      output_path: '/out/train/ckpt',
      seed: 7,
    });
    const again = (await materialize(config, { prefix: tmp.path, outputPath: '/out/train', logger: captureLogger() })) as Record<string, unknown>;
    expect(counter.runs).toBe(1);
    expect(again['tokens']).toBe(resolved['tokens']);
  });

  it('takes the output path from config.output_path when it is a concrete string', async () => {
    await using tmp = await makeTempDir();
    const resolved = await materialize({ output_path: '/data/run', log: thisOutputPath('log.txt') }, { prefix: tmp.path });
    expect(resolved).toEqual({ output_path: '/data/run', log: '/data/run/log.txt' });
  });

  it('throws EXECUTOR_MATERIALIZE_FAILED when the output path is an unresolved OutputName', async () => {
    await using tmp = await makeTempDir();
    await expect(materialize({ output_path: thisOutputPath(), x: 1 }, { prefix: tmp.path })).rejects.toMatchObject({
      code: 'EXECUTOR_MATERIALIZE_FAILED',
    });
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('runs a shared upstream exactly once for two concurrent calls, which get the same path', async () => {
    await using tmp = await makeTempDir();
    const counter = { runs: 0 };
    const [r1, r2] = (await Promise.all([
      materialize({ input: tokenizeStep(counter) }, { prefix: tmp.path, logger: captureLogger() }),
      materialize({ input: tokenizeStep(counter) }, { prefix: tmp.path, logger: captureLogger() }),
    ])) as Record<string, unknown>[];
    expect(counter.runs).toBe(1);
    expect(r1!['input']).toBe(r2!['input']);
  });
});
