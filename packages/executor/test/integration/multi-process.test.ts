import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Executor, ExecutorStep, writeStatus } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { startFixture } from '../helpers/fixture-process.js';
import { statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// The one step of test/fixtures/shared-step.ts has an empty config, so its hash is fixed.
const STEP_DIR = join('shared', 'a-');

async function lines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}

async function stepDir(prefix: string): Promise<string> {
  const { readdir } = await import('node:fs/promises');
  const entries = await readdir(join(prefix, 'shared'));
  const dir = entries.find((e) => e.startsWith('a-'));
  if (dir === undefined) throw new Error(`no ${STEP_DIR}* directory under ${prefix}`);
  return join(prefix, 'shared', dir);
}

describe('several executor processes on one prefix', () => {
  it('runs a step exactly once when 10 executors start at once, and all exit 0', { timeout: 180_000 }, async () => {
    await using prefix = await makeTempDir('exec-prefix');
    await using side = await makeTempDir('exec-side');
    const counter = join(side.path, 'counter.txt');
    const env = {
      COUNTER_FILE: counter,
      STEP_SLEEP_MS: '1500',
      MARIN_LEASE_HEARTBEAT_S: '1',
      MARIN_LEASE_TIMEOUT_S: '20',
      MARIN_LEASE_POLL_S: '0.2',
    };
    const procs = Array.from({ length: 10 }, () => startFixture('shared-step.ts', { args: ['--prefix', prefix.path], env }));
    try {
      const results = await Promise.all(procs.map((p) => p.exited));
      results.forEach((r, i) => expect(r.code, procs[i]!.stderr()).toBe(0));
      expect(await lines(counter)).toHaveLength(1);
      const dir = await stepDir(prefix.path);
      expect(await statusOf(dir)).toBe('SUCCESS');
      expect(await readFile(join(dir, 'done.txt'), 'utf8')).toBe('ok');
    } finally {
      await Promise.all(procs.map((p) => p.close()));
    }
  });

  it('lets a second executor take over once the lease of a SIGKILLed one is stale', { timeout: 120_000 }, async () => {
    await using prefix = await makeTempDir('exec-prefix');
    await using side = await makeTempDir('exec-side');
    const counter = join(side.path, 'counter.txt');
    const lease = { MARIN_LEASE_HEARTBEAT_S: '0.3', MARIN_LEASE_TIMEOUT_S: '2', MARIN_LEASE_POLL_S: '0.2' };
    await using first = startFixture('shared-step.ts', {
      args: ['--prefix', prefix.path],
      env: { ...lease, COUNTER_FILE: counter, STEP_SLEEP_MS: '600000' },
    });
    await first.waitForStdout('STEP-STARTED');
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const dir = await stepDir(prefix.path);
    expect(await statusOf(dir)).toBe('RUNNING');

    await using second = startFixture('shared-step.ts', {
      args: ['--prefix', prefix.path],
      env: { ...lease, COUNTER_FILE: counter, STEP_SLEEP_MS: '100' },
    });
    const { code } = await second.exited;
    expect(code, second.stderr()).toBe(0);
    expect(await lines(counter)).toHaveLength(2);
    expect(await statusOf(dir)).toBe('SUCCESS');
    expect(await readFile(join(dir, 'done.txt'), 'utf8')).toBe('ok');
  });

  it('aborts the step with EXECUTOR_LEASE_LOST and writes no terminal status when the lease is stolen', { timeout: 120_000 }, async () => {
    await using prefix = await makeTempDir('exec-prefix');
    await using side = await makeTempDir('exec-side');
    const abortFile = join(side.path, 'aborts.txt');
    await using victim = startFixture('shared-step.ts', {
      args: ['--prefix', prefix.path],
      env: {
        ABORT_FILE: abortFile,
        STEP_SLEEP_MS: '600000',
        MARIN_LEASE_HEARTBEAT_S: '0.3',
        MARIN_LEASE_TIMEOUT_S: '30',
        MARIN_LEASE_POLL_S: '0.2',
      },
    });
    await victim.waitForStdout('STEP-STARTED');
    const dir = await stepDir(prefix.path);
    const lock = join(dir, '.executor_status.lock');
    const stolen = `{"worker_id": "thief-host-99-1", "timestamp": ${(Date.now() / 1000).toFixed(3)}}`;
    await writeFile(lock, stolen);
    const { code } = await victim.exited;
    expect(code).not.toBe(0);
    expect(await lines(abortFile)).toEqual(['EXECUTOR_LEASE_LOST']);
    expect(victim.stderr()).toContain('EXECUTOR_LEASE_LOST');
    expect(await statusOf(dir)).toBe('RUNNING');
    expect(await readFile(lock, 'utf8')).toBe(stolen);
  });

  it('takes over a RUNNING step whose lease timestamp is absurdly in the future (1e308) instead of waiting for ever', async () => {
    await using prefix = await makeTempDir('exec-prefix');
    await using side = await makeTempDir('exec-side');
    const counter = join(side.path, 'counter.txt');
    const probe = new Executor({ prefix: prefix.path, logger: captureLogger() });
    const step = new ExecutorStep({ name: 'shared/a', config: {}, fn: null });
    probe.computeVersion(step);
    const dir = probe.outputPaths.get(step)!;
    await writeStatus(dir, 'RUNNING');
    await writeFile(join(dir, '.executor_status.lock'), '{"worker_id": "skewed-host-1", "timestamp": 1e+308}');

    await using waiter = startFixture('shared-step.ts', {
      args: ['--prefix', prefix.path],
      env: { COUNTER_FILE: counter, MARIN_LEASE_HEARTBEAT_S: '1', MARIN_LEASE_TIMEOUT_S: '30', MARIN_LEASE_POLL_S: '0.2' },
    });
    const { code } = await waiter.exited;
    expect(code, waiter.stderr()).toBe(0);
    expect(waiter.stderr()).toMatch(/skewed-host-1.*in the future/);
    expect(await lines(counter)).toHaveLength(1);
    expect(await statusOf(dir)).toBe('SUCCESS');
  });
});
