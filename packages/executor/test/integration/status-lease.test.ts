import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Executor, ExecutorStep } from '@marin/executor';
import type { StepContext } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const LEASE_ENV = { MARIN_LEASE_HEARTBEAT_S: '0.2', MARIN_LEASE_TIMEOUT_S: '10', MARIN_LEASE_POLL_S: '0.1' };
const saved: Record<string, string | undefined> = {};
const plain = { progress: 'plain' as const };

beforeAll(() => {
  for (const [k, v] of Object.entries(LEASE_ENV)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

function lockJson(workerId: string, timestampS: number): string {
  const t = Number.isInteger(timestampS) ? `${timestampS}.0` : String(timestampS);
  return `{"worker_id": "${workerId}", "timestamp": ${t}}`;
}

describe('status files and the lease protocol', () => {
  it('reads a legacy JSON-lines status ending in SUCCESS as SUCCESS and skips the step', async () => {
    await using tmp = await makeTempDir();
    let runs = 0;
    const a = new ExecutorStep({ name: 'legacy', config: {}, fn: () => void runs++ });
    const probe = new Executor({ prefix: tmp.path, logger: captureLogger() });
    probe.computeVersion(a);
    const out = probe.outputPaths.get(a)!;
    await mkdir(out, { recursive: true });
    const events = ['WAITING', 'RUNNING', 'SUCCESS'].map(
      (s, i) => `{"date": "2024-05-01T00:00:0${i}", "status": "${s}", "message": null, "ray_task_id": "r1"}`,
    );
    await writeFile(join(out, '.executor_status'), `${events.join('\n')}\n`);
    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([a], plain);
    expect(runs).toBe(0);
  });

  it('writes the status as a bare token without a newline', async () => {
    await using tmp = await makeTempDir();
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const paths = await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([a], plain);
    expect(await readFile(join(paths.get(a)!, '.executor_status'), 'utf8')).toBe('SUCCESS');
  });

  it('writes the lease as Python json.dumps of worker_id and a float timestamp, refreshed by the heartbeat', async () => {
    await using tmp = await makeTempDir();
    const seen: string[] = [];
    const a = new ExecutorStep({
      name: 'a',
      config: {},
      fn: async (_c, ctx: StepContext) => {
        seen.push(await readFile(join(ctx.outputPath, '.executor_status.lock'), 'utf8'));
        await sleep(1000);
        seen.push(await readFile(join(ctx.outputPath, '.executor_status.lock'), 'utf8'));
      },
    });
    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([a], plain);
    const re = /^\{"worker_id": "([^"]+)", "timestamp": (\d+\.\d+)\}$/;
    const [m1, m2] = seen.map((s) => re.exec(s));
    expect(m1).not.toBeNull();
    expect(m2).not.toBeNull();
    expect(m2![1]).toBe(m1![1]);
    expect(Number(m2![2])).toBeGreaterThan(Number(m1![2]));
  });

  it('runs a step shared by two executors exactly once (counter = 3)', async () => {
    await using tmp = await makeTempDir();
    const runs: string[] = [];
    const build = (tail: string) => {
      const a = new ExecutorStep({
        name: 'shared-a',
        config: {},
        fn: async () => {
          runs.push('a');
          await sleep(600);
        },
      });
      return new ExecutorStep({ name: tail, config: { a }, fn: () => void runs.push(tail) });
    };
    await Promise.all([
      new Executor({ prefix: tmp.path, logger: captureLogger() }).run([build('b')], plain),
      new Executor({ prefix: tmp.path, logger: captureLogger() }).run([build('c')], plain),
    ]);
    expect(runs.filter((r) => r === 'a')).toHaveLength(1);
    expect(runs).toHaveLength(3);
  });

  it('takes over a RUNNING step whose lease is back-dated past the timeout', async () => {
    await using tmp = await makeTempDir();
    let runs = 0;
    const a = new ExecutorStep({ name: 'stale', config: {}, fn: () => void runs++ });
    const probe = new Executor({ prefix: tmp.path, logger: captureLogger() });
    probe.computeVersion(a);
    const out = probe.outputPaths.get(a)!;
    await mkdir(out, { recursive: true });
    await writeFile(join(out, '.executor_status'), 'RUNNING');
    await writeFile(join(out, '.executor_status.lock'), lockJson('dead-host-1', Date.now() / 1000 - 60));
    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([a], plain);
    expect(runs).toBe(1);
    expect(await statusOf(out)).toBe('SUCCESS');
  });

  it('waits while another worker holds a fresh lease, logs the holder, and proceeds when it releases', async () => {
    await using tmp = await makeTempDir();
    let runs = 0;
    const a = new ExecutorStep({ name: 'held', config: {}, fn: () => void runs++ });
    const probe = new Executor({ prefix: tmp.path, logger: captureLogger() });
    probe.computeVersion(a);
    const out = probe.outputPaths.get(a)!;
    await mkdir(out, { recursive: true });
    await writeFile(join(out, '.executor_status'), 'RUNNING');
    const lock = join(out, '.executor_status.lock');
    await writeFile(lock, lockJson('other-host-7', Date.now() / 1000));
    const logger = captureLogger();
    const run = new Executor({ prefix: tmp.path, logger }).run([a], plain);
    await sleep(800);
    expect(runs).toBe(0);
    expect(logger.infos.filter((m) => m.includes('other-host-7'))).toHaveLength(1);
    await rm(lock);
    await run;
    expect(runs).toBe(1);
    expect(await statusOf(out)).toBe('SUCCESS');
  });
});
