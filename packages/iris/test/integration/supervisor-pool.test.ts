import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessAlive, pollUntil } from '@marin/rigging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AttemptProcess } from '../../src/worker/attempt-process.js';
import type { SupervisorOptions } from '../../src/worker/attempt-process.js';
import { SupervisorPool } from '../../src/worker/supervisor-pool.js';

let dir: string;
let pool: SupervisorPool;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-supervisor-pool-'));
  pool = new SupervisorPool({ warm: 1 });
});
afterEach(async () => {
  pool.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(script: string, supervisor?: SupervisorOptions): Promise<{ proc: AttemptProcess; lines: string[] }> {
  const lines: string[] = [];
  const proc = await AttemptProcess.spawn({
    argv: [process.execPath, '-e', script],
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '' },
    onOutput: (source, line) => lines.push(`${source}:${line}`),
    supervisors: pool,
    supervisor,
  });
  await proc.exited;
  return { proc, lines };
}

describe('SupervisorPool', () => {
  it('runs consecutive tasks on the same few supervisors, each task with its own output', async () => {
    const supervisorPids = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const { proc, lines } = await run(`process.stdout.write("out ${i}\\ntail ${i}"); process.stderr.write("err ${i}\\n")`);
      supervisorPids.add(proc.supervisorPid);
      expect(lines.sort()).toEqual([`stderr:err ${i}`, `stdout:out ${i}`, `stdout:tail ${i}`]);
      expect(await proc.exited).toMatchObject({ exitCode: 0 });
      // It waits for the next task once its output is marked (nothing to hold without a controller).
      await pollUntil(() => pool.idlePids.includes(proc.supervisorPid), { timeoutMs: 10_000 });
    }
    // One waiting supervisor, plus at most one started while the first was busy.
    expect(pool.stats).toMatchObject({ acquired: 5 });
    expect(pool.stats.started).toBeLessThanOrEqual(2);
    expect(supervisorPids.size).toBeLessThanOrEqual(2);
  }, 60_000);

  it('ends its waiting supervisors on close', async () => {
    await pollUntil(() => pool.idleCount === 1, { timeoutMs: 10_000 });
    const [pid] = pool.idlePids;
    expect(isProcessAlive(pid!)).toBe(true);
    pool.close();
    expect(await pollUntil(() => !isProcessAlive(pid!), { timeoutMs: 10_000 })).toBe(true);
  }, 30_000);

  it('keeps a supervisor that holds an unconfirmed outcome until the outcome is acknowledged, even after close', async () => {
    // Nothing listens there: a supervisor that reported instead of waiting would spend its report timeout retrying.
    const options: SupervisorOptions = { workerId: 'w', attemptUid: 'held-1', controllerAddress: '127.0.0.1:9', leaseMs: 60_000, reportTimeoutMs: 60_000 };
    const { proc } = await run('process.exit(0)', options);
    // Back in the pool, holding the outcome.
    await pollUntil(() => pool.idlePids.includes(proc.supervisorPid), { timeoutMs: 10_000 });
    pool.close();
    await new Promise((r) => setTimeout(r, 500));
    expect(isProcessAlive(proc.supervisorPid)).toBe(true);
    proc.release();
    expect(await pollUntil(() => !isProcessAlive(proc.supervisorPid), { timeoutMs: 10_000 })).toBe(true);
  }, 30_000);

  it('takes the next task only once the last task\'s output has ended, even when "ready" arrives first', async () => {
    const slow = new SupervisorPool({ warm: 1, command: [process.execPath, fileURLToPath(new URL('../fixtures/slow-output-supervisor.mjs', import.meta.url))] });
    try {
      const spawnOn = (text: string, lines: string[]) =>
        AttemptProcess.spawn({
          argv: [process.execPath, '-e', `console.log(${JSON.stringify(text)})`],
          cwd: dir,
          env: { PATH: process.env['PATH'] ?? '' },
          onOutput: (source, line) => lines.push(`${source}:${line}`),
          supervisors: slow,
        });
      const first: string[] = [];
      const one = await spawnOn('one', first);
      // Waiting again: its "ready" came at once, its stdout (with the end marker) 300 ms later.
      await pollUntil(() => slow.idlePids.includes(one.supervisorPid), { timeoutMs: 10_000 });
      const second: string[] = [];
      const two = await spawnOn('two', second);
      expect(two.supervisorPid).toBe(one.supervisorPid);
      const timeout = new Promise((r) => setTimeout(() => r('timed out'), 10_000));
      expect(await Promise.race([Promise.all([one.exited, two.exited]).then(() => 'exited'), timeout])).toBe('exited');
      expect(first).toEqual(['stdout:one']);
      expect(second).toEqual(['stdout:two']);
    } finally {
      slow.close();
    }
  }, 30_000);

  it('hands a busy supervisor to a waiting task when it comes back, rather than starting another', async () => {
    const patient = new SupervisorPool({ warm: 1, growAfterMs: 60_000 });
    try {
      const spawnOn = (script: string) =>
        AttemptProcess.spawn({ argv: [process.execPath, '-e', script], cwd: dir, env: { PATH: process.env['PATH'] ?? '' }, onOutput: () => undefined, supervisors: patient });
      const first = await spawnOn('setTimeout(() => {}, 300)');
      const second = spawnOn('process.exit(0)');
      await pollUntil(() => patient.waitingCount === 1, { timeoutMs: 10_000 });
      const next = await second;
      expect(next.supervisorPid).toBe(first.supervisorPid);
      expect(await first.exited).toMatchObject({ exitCode: 0 });
      expect(await next.exited).toMatchObject({ exitCode: 0 });
      expect(patient.stats).toEqual({ started: 1, acquired: 2 });
    } finally {
      patient.close();
    }
  }, 30_000);

  it('starts another supervisor once a task has waited growAfterMs, and fails tasks still waiting at close', async () => {
    const growing = new SupervisorPool({ warm: 1, growAfterMs: 50 });
    try {
      const spawnOn = () =>
        AttemptProcess.spawn({ argv: [process.execPath, '-e', 'setTimeout(() => {}, 60_000)'], cwd: dir, env: { PATH: process.env['PATH'] ?? '' }, onOutput: () => undefined, supervisors: growing });
      const first = await spawnOn();
      const waitedFrom = performance.now();
      const second = await spawnOn();
      expect(performance.now() - waitedFrom).toBeGreaterThanOrEqual(45);
      expect(second.supervisorPid).not.toBe(first.supervisorPid);
      expect(growing.stats.started).toBe(2);
      // Never started: the pool closes first.
      const slow = new SupervisorPool({ warm: 0, growAfterMs: 60_000 });
      const third = slow.acquire();
      slow.close();
      await expect(third).rejects.toMatchObject({ code: 'IRIS_UNAVAILABLE' });
      await Promise.all([first.stop(1000), second.stop(1000)]);
    } finally {
      growing.close();
    }
  }, 30_000);
});
