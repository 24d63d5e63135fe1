import { describe, expect, it } from 'vitest';
import { LogSource } from '../gen/iris/v1/types.js';
import type { LogEntry } from '../gen/iris/v1/types.js';
import { LOG_LEVELS } from './log-line.js';
import { LogShipper } from './log-shipper.js';

const attempt = { taskId: '/u/j/0', attemptId: 0, attemptUid: 'aaaaaaaaaaaaaaaa' };

describe('LogShipper', () => {
  it('numbers lines per attempt from 0 and keeps source and level', async () => {
    const pushed: LogEntry[] = [];
    await using shipper = new LogShipper({ push: async (e) => void pushed.push(...e), flushIntervalMs: 60_000, now: () => 42 });
    shipper.append(attempt, 'stdout', 'hello');
    shipper.append(attempt, 'stderr', 'ERROR bad');
    shipper.append({ ...attempt, attemptUid: 'bbbbbbbbbbbbbbbb' }, 'build', 'npm install');
    expect(await shipper.drain(1000)).toBe(true);
    expect(pushed.map((e) => [e.attemptUid.slice(0, 1), e.seq, e.source, e.level, e.data])).toEqual([
      ['a', 0, LogSource.LOG_SOURCE_STDOUT, LOG_LEVELS.INFO, 'hello'],
      ['a', 1, LogSource.LOG_SOURCE_STDERR, LOG_LEVELS.ERROR, 'ERROR bad'],
      ['b', 0, LogSource.LOG_SOURCE_BUILD, LOG_LEVELS.INFO, 'npm install'],
    ]);
    expect(pushed[0]?.timestampMs).toBe(42);
  });

  it('keeps a batch after a failed push and delivers it with the same seq on retry', async () => {
    const pushed: LogEntry[] = [];
    let fail = true;
    await using shipper = new LogShipper({
      push: async (e) => {
        if (fail) throw new Error('unavailable');
        pushed.push(...e);
      },
      flushIntervalMs: 60_000,
    });
    shipper.append(attempt, 'stdout', 'one');
    expect(await shipper.flush()).toBe(false);
    expect(shipper.pending).toBe(1);
    fail = false;
    expect(await shipper.drain(1000)).toBe(true);
    expect(pushed.map((e) => [e.seq, e.data])).toEqual([[0, 'one']]);
  });

  it('splits batches by size', async () => {
    const batches: number[] = [];
    await using shipper = new LogShipper({ push: async (e) => void batches.push(e.length), flushIntervalMs: 60_000, maxBatchBytes: 1000 });
    for (let i = 0; i < 30; i += 1) shipper.append(attempt, 'stdout', 'x'.repeat(100));
    await shipper.drain(1000);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(30);
    expect(batches.length).toBeGreaterThan(1);
  });

  it('drops the oldest lines of an attempt over its buffer cap and says so', async () => {
    const pushed: LogEntry[] = [];
    let fail = true;
    await using shipper = new LogShipper({
      push: async (e) => {
        if (fail) throw new Error('unavailable');
        pushed.push(...e);
      },
      flushIntervalMs: 60_000,
      maxBatchBytes: 1024 * 1024,
      maxBufferedBytesPerAttempt: 10_000,
    });
    for (let i = 0; i < 200; i += 1) shipper.append(attempt, 'stdout', `line ${i} ${'x'.repeat(50)}`);
    fail = false;
    await shipper.drain(1000);
    expect(pushed.length).toBeLessThan(200);
    expect(pushed.some((e) => /^\[iris\] dropped \d+ log lines$/.test(e.data))).toBe(true);
    expect(pushed.at(-1)?.data.startsWith('line 199')).toBe(true);
  });
});
