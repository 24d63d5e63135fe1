import { describe, expect, it } from 'vitest';
import { LOG_LEVELS, parseLogLevel, splitLogLine } from './log-line.js';

describe('parseLogLevel()', () => {
  it.each([
    ['DEBUG starting', LOG_LEVELS.DEBUG],
    ['INFO ready', LOG_LEVELS.INFO],
    ['WARN disk low', LOG_LEVELS.WARNING],
    ['WARNING: disk low', LOG_LEVELS.WARNING],
    ['[ERROR] boom', LOG_LEVELS.ERROR],
    ['error: lower case works too', LOG_LEVELS.ERROR],
    ['CRITICAL meltdown', LOG_LEVELS.CRITICAL],
    ['FATAL meltdown', LOG_LEVELS.CRITICAL],
    ['E20260306 12:00:00.000 glog error', LOG_LEVELS.ERROR],
    ['W20260306 12:00:00.000 glog warning', LOG_LEVELS.WARNING],
    ['I20260306 12:00:00.000 glog info', LOG_LEVELS.INFO],
    ['plain output', LOG_LEVELS.INFO],
    ['ERRORS are not a level token', LOG_LEVELS.INFO],
    ['', LOG_LEVELS.INFO],
  ])('reads %j as level %i', (line, level) => {
    expect(parseLogLevel(line)).toBe(level);
  });
});

describe('splitLogLine()', () => {
  it('keeps a short line whole', () => {
    expect(splitLogLine('hello', 64)).toEqual(['hello']);
  });

  it('splits a long line into pieces under the byte cap without breaking characters', () => {
    const line = 'é'.repeat(100); // 200 bytes
    const pieces = splitLogLine(line, 64);
    expect(pieces.join('')).toBe(line);
    for (const piece of pieces) expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(64);
    expect(pieces).toHaveLength(4);
  });
});
