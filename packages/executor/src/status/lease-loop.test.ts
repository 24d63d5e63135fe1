import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLease } from '@marin/rigging';
import type { DistributedLease, LeaseOptions } from '@marin/rigging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutorLogger } from '../logger.js';
import { runUnderLease } from './lease-loop.js';
import type { LeaseLoopOptions } from './lease-loop.js';

const timings = { heartbeatS: 0.05, timeoutS: 30, pollS: 0.05 };
const quiet: ExecutorLogger = { info: () => {}, warn: () => {} };

async function exists(path: string): Promise<boolean> {
  return readFile(path).then(
    () => true,
    () => false,
  );
}

describe('runUnderLease()', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lease-loop-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function options(overrides: Partial<LeaseLoopOptions>): LeaseLoopOptions {
    return {
      label: 'a-123456',
      outputPath: dir,
      timings,
      forceRunFailed: true,
      logger: quiet,
      initialStatus: null,
      onState: () => {},
      verifyHit: async () => {},
      attempt: async () => {},
      ...overrides,
    };
  }

  it('writes SUCCESS as a bare token and releases the lease', async () => {
    await expect(runUnderLease(options({}))).resolves.toBe('ran');
    expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('SUCCESS');
    expect(await exists(join(dir, '.executor_status.lock'))).toBe(false);
  });

  it('writes RUNNING and a Python-shaped lease while the body runs', async () => {
    let seen: { status: string; lock: string } | null = null;
    await runUnderLease(
      options({
        attempt: async () => {
          seen = {
            status: await readFile(join(dir, '.executor_status'), 'utf8'),
            lock: await readFile(join(dir, '.executor_status.lock'), 'utf8'),
          };
        },
      }),
    );
    expect(seen!.status).toBe('RUNNING');
    expect(seen!.lock).toMatch(/^\{"worker_id": "[^"]+", "timestamp": \d+(\.\d+|\.\d+e\+\d+)\}$/);
  });

  it('writes FAILED and rethrows as Step failed with the original cause', async () => {
    const original = new Error('boom');
    const err = await runUnderLease(options({ attempt: () => Promise.reject(original) })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', cause: original });
    expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('FAILED');
  });

  it('releases the lease and does not run when the status turns SUCCESS between acquisition and the re-read', async () => {
    let ran = false;
    let leaseSeen: DistributedLease | null = null;
    const racingLease = (url: string, opts: LeaseOptions): DistributedLease => {
      const real = createLease(url, opts);
      leaseSeen = real;
      return Object.assign(Object.create(real) as DistributedLease, {
        tryAcquire: async () => {
          const ok = await real.tryAcquire();
          // Another worker finishes the step right after we won the lease.
          await writeFile(join(dir, '.executor_status'), 'SUCCESS');
          return ok;
        },
      });
    };
    const result = await runUnderLease(
      options({
        createLease: racingLease,
        attempt: async () => {
          ran = true;
        },
      }),
    );
    expect(result).toBe('skipped');
    expect(ran).toBe(false);
    expect(leaseSeen).not.toBeNull();
    expect(await exists(join(dir, '.executor_status.lock'))).toBe(false);
    expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('SUCCESS');
  });

  it('skips a step another worker completed while we waited', async () => {
    await writeFile(join(dir, '.executor_status'), 'RUNNING');
    const holder = createLease(join(dir, '.executor_status.lock'), { workerId: 'other-host-1', timings });
    expect(await holder.tryAcquire()).toBe(true);
    const states: string[] = [];
    const run = runUnderLease(options({ initialStatus: 'RUNNING', onState: (s) => void states.push(s) }));
    setTimeout(() => {
      void writeFile(join(dir, '.executor_status'), 'SUCCESS').then(() => holder.release());
    }, 300);
    await expect(run).resolves.toBe('skipped');
    expect(states).toContain('waiting');
  });

  it('fails with EXECUTOR_PREVIOUSLY_FAILED when the status is FAILED and forceRunFailed is off', async () => {
    await writeFile(join(dir, '.executor_status'), 'FAILED');
    await expect(runUnderLease(options({ initialStatus: 'FAILED', forceRunFailed: false }))).rejects.toMatchObject({
      code: 'EXECUTOR_PREVIOUSLY_FAILED',
    });
  });

  it('aborts the body, writes nothing and does not release when the lease is stolen', async () => {
    let signalReason: unknown = null;
    const err = await runUnderLease(
      options({
        attempt: async (signal) => {
          // Another worker takes the lease over.
          await writeFile(join(dir, '.executor_status.lock'), `{"worker_id": "thief-1", "timestamp": ${Date.now() / 1000}}`);
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          signalReason = signal.reason;
        },
      }),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EXECUTOR_LEASE_LOST' });
    expect(signalReason).toMatchObject({ code: 'EXECUTOR_LEASE_LOST' });
    expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('RUNNING');
    expect(await readFile(join(dir, '.executor_status.lock'), 'utf8')).toContain('"thief-1"');
  });

  it('stops awaiting a body that ignores the signal as soon as the lease is lost', async () => {
    let finish!: () => void;
    const never = new Promise<void>((r) => (finish = r));
    const err = await runUnderLease(
      options({
        attempt: async () => {
          await writeFile(join(dir, '.executor_status.lock'), `{"worker_id": "thief-2", "timestamp": ${Date.now() / 1000}}`);
          await never;
        },
      }),
    ).catch((e: unknown) => e);
    finish();
    expect(err).toMatchObject({ code: 'EXECUTOR_LEASE_LOST' });
    expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('RUNNING');
  });
});
