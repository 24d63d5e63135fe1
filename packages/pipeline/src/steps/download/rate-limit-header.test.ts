import { describe, expect, it } from 'vitest';
import { parseRateLimitResetSeconds } from './rate-limit-header.js';

describe('parseRateLimitResetSeconds()', () => {
  it.each([
    ['"api";r=0;t=44', 44],
    ['"resolvers";r=12;t=300', 300],
    ['t=7', 7],
    ['"api"; r=0; t=2.5', 2.5],
    ['limit=100, remaining=0, reset=30, t=30', 30],
  ])('reads t from %j', (header, seconds) => {
    expect(parseRateLimitResetSeconds(header)).toBe(seconds);
  });

  it.each([[null], [undefined], [''], ['"api";r=0'], ['"api";rt=5']])('returns null for %j', (header) => {
    expect(parseRateLimitResetSeconds(header)).toBeNull();
  });
});
