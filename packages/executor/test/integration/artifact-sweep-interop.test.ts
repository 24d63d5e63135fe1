// Sweep claim-and-run across languages on one root: a marin-core 0.2.227 worker (marin.execution.sweep.claim_and_run)
// and a TypeScript worker split the cells, each cell runs once with its .artifact.json, and a SIGKILLed Python
// claimer's cell is retaken once its lease is stale.
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRecord } from '../../src/artifact/record.js';
import { claimAndRun } from '../../src/artifact/sweep.js';
import { readStatus } from '../../src/status/status-store.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { startMarinPython } from '../helpers/marin-core-python.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { TempDir } from '../helpers/temp-dir.js';

const TARGETS = Array.from({ length: 6 }, (_, i) => ({ targetId: `cell${i}`, config: { i } }));

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir('sweep-interop');
});
afterEach(async () => {
  await tmp.close();
});

async function lines(path: string): Promise<string[]> {
  return (await readFile(path, 'utf8')).trim().split('\n');
}

describe('sweep claim-and-run with marin-core 0.2.227', () => {
  it('a Python and a TypeScript worker split the cells; each runs once and gets its record', async () => {
    const root = join(tmp.path, 'sweep');
    const log = join(tmp.path, 'runs.log');
    const python = await startMarinPython('sweep_worker.py', [root, log], { prefix: tmp.path });
    // Let Python claim a first cell before TypeScript races it (its import takes several seconds).
    for (let i = 0; i < 600 && !(await readFile(log, 'utf8').catch(() => '')).includes('py'); i++) await sleep(100);
    const ts = await claimAndRun(root, TARGETS, async (t) => {
      await appendFile(log, `ts ${t.targetId}\n`);
      await sleep(500);
    }, { logger: captureLogger(), timings: { heartbeatS: 1, timeoutS: 90, pollS: 0.5 } });
    const done = await python.exited;
    expect(done.code, done.stderr.slice(-2000)).toBe(0);
    const ran = await lines(log);
    expect(ran.map((l) => l.split(' ')[1]).sort()).toEqual(TARGETS.map((t) => t.targetId));
    expect(ran.some((l) => l.startsWith('py'))).toBe(true);
    expect([...ts.values()].filter((o) => o === 'ran').length).toBe(ran.filter((l) => l.startsWith('ts')).length);
    for (const t of TARGETS) {
      expect(await readStatus(join(root, t.targetId))).toBe('SUCCESS');
      expect(await readRecord(join(root, t.targetId))).toMatchObject({ name: t.targetId, config: { i: t.config.i } });
    }
  }, 180_000);

  it("a SIGKILLed Python claimer's cell is retaken by TypeScript once its lease is stale", async () => {
    const root = join(tmp.path, 'sweep');
    const log = join(tmp.path, 'runs.log');
    const python = await startMarinPython('sweep_worker.py', [root, log, '--hold'], { prefix: tmp.path });
    await python.waitForStdout('holding');
    python.kill('SIGKILL');
    await python.exited;
    const ts = await claimAndRun(root, TARGETS, () => appendFile(log, 'ts\n'), { logger: captureLogger(), timings: { heartbeatS: 1, timeoutS: 5, pollS: 0.5 } });
    expect([...ts.values()]).toEqual(Array(6).fill('ran'));
    expect((await lines(log))[0]).toBe('py cell0');
    expect(await readStatus(join(root, 'cell0'))).toBe('SUCCESS');
  }, 180_000);
});
