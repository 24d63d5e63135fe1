import { describe, expect, it } from 'vitest';
import { HUB_MAX_ATTEMPTS, hubRetryDelayMs } from './retry-schedule.js';

const noJitter = (): number => 0;
const fullJitter = (): number => 0.999999;

describe('hubRetryDelayMs()', () => {
  it('doubles from 5 s and stops growing at 15 min', () => {
    const waits = Array.from({ length: HUB_MAX_ATTEMPTS - 1 }, (_, a) => hubRetryDelayMs(a, noJitter) / 1000);
    expect(waits.slice(0, 9)).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 900]);
    expect(waits.slice(8).every((w) => w === 900)).toBe(true);
  });

  it('adds at most 25 % jitter while that is under 30 s', () => {
    expect(hubRetryDelayMs(0, fullJitter)).toBeCloseTo(5_000 * 1.25, 0);
    expect(hubRetryDelayMs(2, fullJitter)).toBeCloseTo(20_000 * 1.25, 0);
    expect(hubRetryDelayMs(2, () => 0.5)).toBe(20_000 + 2_500);
  });

  it('caps the jitter at 30 s', () => {
    expect(hubRetryDelayMs(4, fullJitter)).toBeCloseTo(80_000 + 20_000, 0);
    expect(hubRetryDelayMs(5, fullJitter)).toBeCloseTo(160_000 + 30_000, 0);
    expect(hubRetryDelayMs(12, fullJitter)).toBeCloseTo(900_000 + 30_000, 0);
  });

  it('waits at least the rate-limit reset plus 10 s', () => {
    expect(hubRetryDelayMs(0, noJitter, 30)).toBe(40_000);
    expect(hubRetryDelayMs(0, noJitter, 0)).toBe(10_000);
    expect(hubRetryDelayMs(6, noJitter, 30)).toBe(320_000); // the backoff is already longer
    expect(hubRetryDelayMs(12, noJitter, 3_600)).toBe(3_610_000); // the reset beats the 15 min cap
  });

  it('never waits less than 5 s', () => {
    for (let a = 0; a < HUB_MAX_ATTEMPTS; a++) expect(hubRetryDelayMs(a, noJitter)).toBeGreaterThanOrEqual(5_000);
  });
});
