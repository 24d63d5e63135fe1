import { describe, expect, it } from 'vitest';
import { Executor, ExecutorStep, versioned } from '@marin/executor';
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
