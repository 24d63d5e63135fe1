import { describe, expect, it, vi } from 'vitest';
import { RiggingError } from '../errors.js';
import { ExponentialBackoff } from './exponential-backoff.js';
import { retryWithBackoff } from './retry-with-backoff.js';

const fast = () => new ExponentialBackoff({ initialMs: 1, maximumMs: 4, factor: 2, jitter: 0 });

describe('ExponentialBackoff', () => {
  it('grows by factor up to maximumMs within the jitter bounds', () => {
    const b = new ExponentialBackoff({ initialMs: 100, maximumMs: 500, factor: 2, jitter: 0.1 });
    const bases = [100, 200, 400, 500, 500];
    for (const base of bases) {
      const v = b.nextIntervalMs();
      expect(v).toBeGreaterThanOrEqual(base * 0.9);
      expect(v).toBeLessThanOrEqual(base * 1.1);
    }
    b.reset();
    const v = b.nextIntervalMs();
    expect(v).toBeGreaterThanOrEqual(90);
    expect(v).toBeLessThanOrEqual(110);
  });

  it('uses the documented defaults', () => {
    const b = new ExponentialBackoff({ random: () => 0.5 });
    expect([b.nextIntervalMs(), b.nextIntervalMs()]).toEqual([50, 75]);
  });

  it('waitUntil resolves true when the condition holds and false on timeout', async () => {
    let n = 0;
    expect(await fast().waitUntil(() => ++n >= 3, { timeoutMs: 5000 })).toBe(true);
    expect(await fast().waitUntil(() => false, { timeoutMs: 20 })).toBe(false);
    await expect(fast().waitUntilOrThrow(() => false, { timeoutMs: 20 })).rejects.toMatchObject({ code: 'RIGGING_UNAVAILABLE' });
  });
});

describe('retryWithBackoff()', () => {
  it('retries until success and logs each retry', async () => {
    const lines: string[] = [];
    const onRetry = vi.fn();
    let calls = 0;
    const result = await retryWithBackoff(
      async () => {
        if (++calls < 3) throw new Error('flaky');
        return 'ok';
      },
      { backoff: fast(), operation: 'fetch', log: (l) => lines.push(l), onRetry },
    );
    expect(result).toBe('ok');
    expect(onRetry).toHaveBeenCalledTimes(2);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Operation fetch failed \(attempt 1\/10, elapsed \d+\.\ds\), retrying in \d+\.\d\ds$/);
  });

  it('stops after maxAttempts and rethrows the last error unchanged', async () => {
    let calls = 0;
    const errors: Error[] = [];
    const p = retryWithBackoff(
      async () => {
        const e = new Error(`fail ${++calls}`);
        errors.push(e);
        throw e;
      },
      { backoff: fast(), maxAttempts: 3, log: () => undefined },
    );
    const caught = await p.catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect(caught).toBe(errors[2]);
  });

  it('never retries a non-retryable error', async () => {
    let calls = 0;
    const err = new RiggingError('RIGGING_NOT_FOUND', 'x');
    await expect(
      retryWithBackoff(
        async () => {
          calls++;
          throw err;
        },
        { backoff: fast(), retryable: (e) => RiggingError.is(e) && e.retryable, log: () => undefined },
      ),
    ).rejects.toBe(err);
    expect(calls).toBe(1);
  });

  it('honours maxElapsedMs', async () => {
    let calls = 0;
    const slow = new ExponentialBackoff({ initialMs: 1000, jitter: 0 });
    await expect(
      retryWithBackoff(
        async () => {
          calls++;
          throw new Error('x');
        },
        { backoff: slow, maxElapsedMs: 500, log: () => undefined },
      ),
    ).rejects.toThrow('x');
    expect(calls).toBe(1);
  });

  it('stops waiting when the signal aborts', async () => {
    const ac = new AbortController();
    let calls = 0;
    const slow = new ExponentialBackoff({ initialMs: 60_000, jitter: 0 });
    const p = retryWithBackoff(
      async () => {
        calls++;
        throw new Error('down');
      },
      { backoff: slow, signal: ac.signal, log: () => undefined },
    );
    setTimeout(() => ac.abort(), 20);
    await expect(p).rejects.toThrow('down');
    expect(calls).toBe(1);
  });
});

describe('retryWithBackoff() with injected sleep, clock and per-error delay', () => {
  it('passes the attempt number and waits what delayMs says for each error', async () => {
    const waits: number[] = [];
    const attempts: number[] = [];
    const rateLimited = Object.assign(new Error('429'), { resetMs: 30_000 });
    const result = await retryWithBackoff(
      async (attempt) => {
        attempts.push(attempt);
        if (attempt === 1) throw rateLimited;
        if (attempt === 2) throw new Error('503');
        return 'ok';
      },
      {
        delayMs: (error, attempt) => ((error as { resetMs?: number }).resetMs ?? 1_000 * attempt),
        sleep: async (ms) => void waits.push(ms),
        log: () => undefined,
      },
    );
    expect(result).toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
    expect(waits).toEqual([30_000, 2_000]);
  });

  it('measures maxElapsedMs on the injected clock', async () => {
    let t = 0;
    const waits: number[] = [];
    let calls = 0;
    const err = await retryWithBackoff(
      async () => {
        calls++;
        throw new Error('down');
      },
      {
        backoff: new ExponentialBackoff({ initialMs: 400, factor: 1, maximumMs: 400, jitter: 0 }),
        maxElapsedMs: 1_000,
        now: () => t,
        sleep: async (ms) => {
          waits.push(ms);
          t += ms;
        },
        log: () => undefined,
      },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(waits).toEqual([400, 400]);
    expect(calls).toBe(3);
  });
});
