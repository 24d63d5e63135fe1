import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureLogger } from '../../test/helpers/capture-logger.js';
import { makeTempDir } from '../../test/helpers/temp-dir.js';
import type { TempDir } from '../../test/helpers/temp-dir.js';
import { ExecutorError } from '../errors.js';
import { readStatus } from '../status/status-store.js';
import { readRecord } from './record.js';
import { claimAndRun, grid, selectBest, sweep } from './sweep.js';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir('sweep');
});
afterEach(async () => {
  await tmp.close();
});

const TIMINGS = { heartbeatS: 1, timeoutS: 10, pollS: 0.2 };

describe('grid() / sweep() / selectBest()', () => {
  it('enumerates row-major with the last axis fastest, one trial per point', () => {
    expect(grid({ lr: [1, 2], wd: ['a', 'b'] })).toEqual([{ lr: 1, wd: 'a' }, { lr: 1, wd: 'b' }, { lr: 2, wd: 'a' }, { lr: 2, wd: 'b' }]);
    expect(sweep((p) => `t-${p.lr}-${p.wd}`, { lr: [1], wd: ['x', 'y'] })).toEqual(['t-1-x', 't-1-y']);
    expect(grid({})).toEqual([{}]);
  });

  it('selects the min or max by a metric, refusing an empty list', () => {
    const xs = [{ loss: 3 }, { loss: 1 }, { loss: 2 }];
    expect(selectBest(xs, (x) => x.loss, 'min')).toBe(xs[1]);
    expect(selectBest(xs, (x) => x.loss, 'max')).toBe(xs[0]);
    expect(() => selectBest([], () => 0, 'min')).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }) as Error);
  });
});

describe('claimAndRun()', () => {
  it('splits targets between concurrent workers, each target once, with a cell record and SUCCESS', async () => {
    const targets = grid({ lr: [1, 2, 3], seed: [0, 1] }).map((p) => ({ targetId: `lr${p.lr}-s${p.seed}`, config: p }));
    const log = join(tmp.path, 'runs.log');
    const worker = (w: string) =>
      claimAndRun(tmp.path, targets, async (t) => {
        await appendFile(log, `${w} ${t.targetId}\n`);
        await sleep(100);
      }, { logger: captureLogger(), timings: TIMINGS });
    const [a, b] = await Promise.all([worker('a'), worker('b')]);
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines.map((l) => l.split(' ')[1]).sort()).toEqual(targets.map((t) => t.targetId).sort());
    for (const t of targets) {
      expect([a.get(t.targetId), b.get(t.targetId)].sort()).toEqual(['ran', 'skipped']);
      expect(await readStatus(join(tmp.path, t.targetId))).toBe('SUCCESS');
      expect(await readRecord(join(tmp.path, t.targetId))).toMatchObject({ name: t.targetId, config: t.config, deps: [] });
    }
  });

  it('a failed target writes FAILED and stops the worker; the next worker retries it', async () => {
    const targets = [{ targetId: 'only', config: { x: 1 } }];
    const err = await claimAndRun(tmp.path, targets, () => { throw new Error('boom'); }, { logger: captureLogger(), timings: TIMINGS }).catch((e: unknown) => e);
    expect(ExecutorError.hasCode(err, 'EXECUTOR_STEP_FAILED')).toBe(true);
    expect(await readStatus(join(tmp.path, 'only'))).toBe('FAILED');
    const outcomes = await claimAndRun(tmp.path, targets, () => undefined, { logger: captureLogger(), timings: TIMINGS });
    expect(outcomes.get('only')).toBe('ran');
    expect(await readStatus(join(tmp.path, 'only'))).toBe('SUCCESS');
  });

  it('refuses a config that is not a JSON object before writing anything', async () => {
    await expect(claimAndRun(tmp.path, [{ targetId: 't', config: [1, 2] }], () => undefined, { logger: captureLogger() })).rejects.toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT' });
    await expect(claimAndRun(tmp.path, [{ targetId: 't', config: { f: () => 1 } }], () => undefined, { logger: captureLogger() })).rejects.toMatchObject({ code: 'EXECUTOR_UNCANONICAL_CONFIG' });
    expect(await readStatus(join(tmp.path, 't'))).toBeNull();
  });
});
