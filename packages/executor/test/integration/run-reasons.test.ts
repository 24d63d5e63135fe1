import { describe, expect, it } from 'vitest';
import { Executor, ExecutorStep, versioned } from '@marin/executor';
import type { StepContext } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** Runs data(n) → stats once and returns the start lines it printed. */
async function startLines(prefix: string, n: number, fail = false): Promise<string[]> {
  const data = new ExecutorStep({ name: 'why/data', config: { n: versioned(n) }, fn: () => {} });
  const stats = new ExecutorStep({
    name: 'why/stats',
    config: { input_path: data },
    fn: () => {
      if (fail) throw new Error('stats failed');
    },
  });
  let text = '';
  const ex = new Executor({ prefix, logger: captureLogger(), progressStream: { write: (s: string) => void (text += s) } });
  await ex.run([stats], { progress: 'plain' }).catch(() => undefined);
  return text.split('\n').filter((l) => l.startsWith('▶ ')).map((l) => l.replace(/-[0-9a-f]{6}/, ''));
}

describe('why a step runs', () => {
  it('says no earlier output, config changed with the field and values, dependency changed, previous run failed', async () => {
    await using tmp = await makeTempDir();
    expect(await startLines(tmp.path, 100)).toEqual(['▶ why/data started: no earlier output', '▶ why/stats started: no earlier output']);
    expect(await startLines(tmp.path, 200, true)).toEqual(['▶ why/data started: config changed: n 100→200', '▶ why/stats started: dependency changed']);
    expect(await startLines(tmp.path, 200)).toEqual(['▶ why/stats started: previous run failed']);
  });
});

describe("a step's own progress", () => {
  it('reaches the display through ctx.progress: a note once, status lines off a TTY, nothing at quiet', async () => {
    await using tmp = await makeTempDir();
    const run = async (verbosity: 'normal' | 'quiet', prefix: string): Promise<{ lines: string[]; level: string | undefined }> => {
      let level: string | undefined;
      const train = new ExecutorStep({
        name: 'watch/train',
        config: {},
        fn: (_config: unknown, ctx: StepContext) => {
          level = ctx.progress?.level;
          ctx.progress?.note('raw log: /x/train.log');
          ctx.progress?.status('step 1/2');
        },
      });
      let text = '';
      const ex = new Executor({ prefix, logger: captureLogger(), progressStream: { write: (s: string) => void (text += s) } });
      await ex.run([train], { progress: 'plain', verbosity, statusIntervalMs: 60_000 });
      return { lines: text.split('\n').map((l) => l.replace(/-[0-9a-f]{6}/, '')), level };
    };
    const normal = await run('normal', `${tmp.path}/a`);
    expect(normal.level).toBe('normal');
    expect(normal.lines.slice(0, 3)).toEqual(['▶ watch/train started: no earlier output', '  ↳ raw log: /x/train.log', '⋯ watch/train step 1/2']);
    expect(normal.lines[3]).toMatch(/^✓ watch\/train done in /);
    const quiet = await run('quiet', `${tmp.path}/b`);
    expect(quiet.level).toBe('quiet');
    expect(quiet.lines.filter((l) => l.includes('raw log') || l.includes('step 1/2'))).toEqual([]);
  });
});
