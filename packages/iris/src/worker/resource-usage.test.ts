import { describe, expect, it } from 'vitest';
import { parseProcStat, UsageTracker } from './resource-usage.js';

describe('parseProcStat()', () => {
  it('reads pgrp, cpu times, start time and rss even when comm has spaces', () => {
    // Fields 1..24 of /proc/<pid>/stat; comm "(my (odd) proc)" contains spaces and parentheses.
    const fields = ['S', '1', '4242', '4242', '0', '-1', '4194304', '0', '0', '0', '0', '150', '50', '0', '0', '20', '0', '1', '0', '987654', '1000000', '256'];
    const text = `4242 (my (odd) proc) ${fields.join(' ')}`;
    expect(parseProcStat(text)).toEqual({ state: 'S', pgrp: 4242, utime: 150, stime: 50, startTime: 987654, rssPages: 256 });
  });
});

describe('UsageTracker', () => {
  it('turns cumulative ticks into millicores and tracks peak memory', () => {
    const tracker = new UsageTracker();
    tracker.add({ cpuTicks: 100, rssBytes: 1000, processCount: 2 }, 10_000);
    // 50 ticks = 0.5 s of CPU over 1 s of wall time → 500 millicores.
    const usage = tracker.add({ cpuTicks: 150, rssBytes: 500, processCount: 1 }, 11_000);
    expect(usage).toEqual({ cpuMillicores: 500, memoryBytes: 500, peakMemoryBytes: 1000, processCount: 1 });
  });
});
