import { rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Executor, ExecutorStep } from '@marin/executor';
import { createLease, writeText } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { captureLogger } from '../helpers/capture-logger.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const TOMBSTONE = '.executor_gc_tombstone';
const present = (p: string): Promise<boolean> => stat(p).then(() => true, () => false);

function dag(): { a: ExecutorStep; b: ExecutorStep } {
  const a = new ExecutorStep({ name: 'reclaim/a', config: {}, fn: async (_c, ctx) => writeText(`${ctx.outputPath}/data.bin`, 'a') });
  const b = new ExecutorStep({ name: 'reclaim/b', config: { input: a }, fn: async (_c, ctx) => writeText(`${ctx.outputPath}/data.bin`, 'b') });
  return { a, b };
}

async function run(prefix: string): Promise<Executor> {
  const ex = new Executor({ prefix, logger: captureLogger(), progressStream: { write: () => true } });
  const { b } = dag();
  await ex.run([b], { progress: 'plain' });
  return ex;
}

describe('an executor reusing outputs marked by marin gc', () => {
  it('removes the tombstones under the lease and reuses the outputs', { timeout: 60_000 }, async () => {
    await using tmp = await makeTempDir('exec-gc-reclaim');
    const first = await run(tmp.path);
    const outs = [...first.outputPaths.values()];
    for (const out of outs) await writeText(`${out}/${TOMBSTONE}`, JSON.stringify({ gc: 'gc-1', written: 1, status: 'SUCCESS' }));
    const second = await run(tmp.path);
    expect(second.report?.steps.map((s) => [s.name, s.outcome]).sort()).toEqual([['reclaim/a', 'skipped'], ['reclaim/b', 'skipped']]);
    for (const out of outs) {
      expect(await present(`${out}/${TOMBSTONE}`), out).toBe(false);
      expect(await present(`${out}/.executor_status.lock`), out).toBe(false);
      expect(await present(`${out}/data.bin`), out).toBe(true);
    }
  });

  it('waits while gc holds the lease of a marked output and runs the step when gc deleted it', { timeout: 60_000 }, async () => {
    await using tmp = await makeTempDir('exec-gc-reclaim');
    const first = await run(tmp.path);
    const { a, b } = dag();
    const probe = new Executor({ prefix: tmp.path, logger: captureLogger() });
    probe.computeVersion(b);
    const outB = probe.outputPaths.get(b)!;
    const outA = probe.outputPaths.get(a)!;
    expect([...first.outputPaths.values()].sort()).toEqual([outA, outB].sort());
    // gc marked b and holds its lease while deleting it.
    await writeText(`${outB}/${TOMBSTONE}`, JSON.stringify({ gc: 'gc-1', written: 1, status: 'SUCCESS' }));
    const gc = createLease(`${outB}/.executor_status.lock`, { workerId: 'gc-1-host-1-1' });
    expect(await gc.tryAcquire()).toBe(true);
    const second = run(tmp.path);
    await sleep(500);
    for (const f of ['.executor_status', 'data.bin', '.executor_info', TOMBSTONE]) await rm(`${outB}/${f}`, { force: true });
    await gc.release();
    const ex = await second;
    expect(ex.report?.steps.map((s) => [s.name, s.outcome]).sort()).toEqual([['reclaim/a', 'skipped'], ['reclaim/b', 'ran']]);
    expect(await present(`${outB}/data.bin`)).toBe(true);
    expect(await present(`${outB}/${TOMBSTONE}`)).toBe(false);
  });
});
