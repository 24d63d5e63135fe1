import { describe, expect, it } from 'vitest';
import { ExponentialBackoff } from './exponential-backoff.js';
import { pollUntil } from './poll-until.js';
import type { Sleep } from './sleep.js';

/** A fake clock whose sleep records each wait and moves time on by it. */
function fakeClock(): { now: () => number; sleep: Sleep; waits: number[] } {
  let t = 1_000;
  const waits: number[] = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      waits.push(ms);
      t += ms;
    },
    waits,
  };
}

describe('pollUntil()', () => {
  it('resolves true as soon as the condition holds, checking first', async () => {
    const clock = fakeClock();
    let n = 0;
    expect(await pollUntil(() => ++n >= 3, { ...clock, interval: 10 })).toBe(true);
    expect(clock.waits).toEqual([10, 10]);
    expect(await pollUntil(() => true, clock)).toBe(true);
    expect(clock.waits).toEqual([10, 10]);
  });

  it('resolves false at the timeout, never waiting past it', async () => {
    const clock = fakeClock();
    expect(await pollUntil(() => false, { ...clock, timeoutMs: 120, interval: 50 })).toBe(false);
    expect(clock.waits).toEqual([50, 50, 20]);
  });

  it('checks once with a zero timeout', async () => {
    const clock = fakeClock();
    let checks = 0;
    expect(await pollUntil(() => (checks++, false), { ...clock, timeoutMs: 0 })).toBe(false);
    expect(checks).toBe(1);
    expect(clock.waits).toEqual([]);
  });

  it('takes growing intervals from a backoff and awaits async conditions', async () => {
    const clock = fakeClock();
    let n = 0;
    const interval = new ExponentialBackoff({ initialMs: 100, factor: 1.5, maximumMs: 200, jitter: 0 });
    expect(await pollUntil(async () => ++n >= 5, { ...clock, interval })).toBe(true);
    expect(clock.waits).toEqual([100, 150, 200, 200]);
  });

  it('defaults to 50 ms between checks', async () => {
    const clock = fakeClock();
    let n = 0;
    await pollUntil(() => ++n >= 2, clock);
    expect(clock.waits).toEqual([50]);
  });

  it('rejects when the signal aborts during a wait (real sleep)', async () => {
    const ac = new AbortController();
    const p = pollUntil(() => false, { interval: 60_000, signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });
});
