import { describe, expect, it } from 'vitest';
import { GIB, job, tasks, worker } from '../../test/helpers/scheduler-fixtures.js';
import { effectiveBand, mayPreempt, resourceValue, userSpend } from './priority-band.js';
import { scheduleTick } from './schedule-tick.js';
import type { SchedulerJob } from './types.js';

describe('resourceValue()', () => {
  it('is 1000 per accelerator + whole GiB of RAM + 5 per whole core', () => {
    expect(resourceValue({ cpuMillicores: 2500, memoryBytes: 3.5 * GIB, gpuCount: 0, tpuChips: 4 })).toBe(4000 + 3 + 10);
    expect(resourceValue({ cpuMillicores: 999, memoryBytes: GIB - 1, gpuCount: 0, tpuChips: 0 })).toBe(0);
  });
});

describe('effectiveBand()', () => {
  it('demotes over-budget INTERACTIVE to BATCH, never PRODUCTION', () => {
    const limits = { budgetLimit: 100, maxBand: 'PRODUCTION' as const };
    expect(effectiveBand('INTERACTIVE', limits, 101)).toBe('BATCH');
    expect(effectiveBand('INTERACTIVE', limits, 100)).toBe('INTERACTIVE');
    expect(effectiveBand('PRODUCTION', limits, 10_000)).toBe('PRODUCTION');
    expect(effectiveBand('INTERACTIVE', { budgetLimit: 0, maxBand: 'PRODUCTION' }, 10_000)).toBe('INTERACTIVE');
  });

  it('caps requests at max_band', () => {
    expect(effectiveBand('PRODUCTION', { budgetLimit: 0, maxBand: 'INTERACTIVE' }, 0)).toBe('INTERACTIVE');
    expect(effectiveBand('PRODUCTION', { budgetLimit: 0, maxBand: 'BATCH' }, 0)).toBe('BATCH');
    expect(effectiveBand('BATCH', { budgetLimit: 0, maxBand: 'INTERACTIVE' }, 0)).toBe('BATCH');
  });

  it('is the identity for users without a budget', () => {
    expect(effectiveBand('PRODUCTION', undefined, 1e9)).toBe('PRODUCTION');
  });
});

describe('userSpend()', () => {
  it('sums live non-BATCH tasks per user', () => {
    const r = { cpuMillicores: 1000, memoryBytes: GIB, gpuCount: 0, tpuChips: 1 };
    const spend = userSpend([
      { user: 'a', band: 'INTERACTIVE', resources: r },
      { user: 'a', band: 'PRODUCTION', resources: r },
      { user: 'a', band: 'BATCH', resources: r },
      { user: 'b', band: 'BATCH', resources: r },
    ]);
    expect(spend.get('a')).toBe(2 * 1006);
    expect(spend.has('b')).toBe(false);
  });
});

describe('mayPreempt()', () => {
  it('only lets a strictly better band that is not BATCH preempt', () => {
    expect(mayPreempt('PRODUCTION', 'INTERACTIVE')).toBe(true);
    expect(mayPreempt('INTERACTIVE', 'BATCH')).toBe(true);
    expect(mayPreempt('BATCH', 'BATCH')).toBe(false);
    expect(mayPreempt('INTERACTIVE', 'PRODUCTION')).toBe(false);
  });
});

describe('bands in the queue', () => {
  const banded = (id: string, band: SchedulerJob['band'], user = 'u', seq?: number): SchedulerJob => ({ ...job(id, seq === undefined ? {} : { seq }), band, user });

  it('places the better band first, ahead of depth and age, and stamps it on the assignment', () => {
    const old = banded('/u/old/deep/child', 'BATCH', 'u', 1);
    const prod = banded('/u/new', 'PRODUCTION', 'u', 2);
    const r = scheduleTick({ nowMs: 0, workers: [worker('w', { cores: 1 })], jobs: [old, prod], tasks: [...tasks(old, 1), ...tasks(prod, 1)] });
    expect(r.assignments).toEqual([{ taskId: '/u/new/0', jobId: '/u/new', workerId: 'w', band: 'PRODUCTION' }]);
  });

  it('interleaves users round-robin within a band, the lowest spender first', () => {
    const a = banded('/a/j', 'INTERACTIVE', 'a', 1);
    const b = banded('/b/j', 'INTERACTIVE', 'b', 2);
    const r = scheduleTick({
      nowMs: 0,
      workers: [worker('w', { cores: 4 })],
      jobs: [a, b],
      tasks: [...tasks(a, 4), ...tasks(b, 4)],
      userSpend: new Map([['a', 50], ['b', 10]]),
    });
    expect(r.assignments.map((x) => x.taskId)).toEqual(['/b/j/0', '/a/j/0', '/b/j/1', '/a/j/1']);
  });

  it('moves a user to their next job when one is exhausted', () => {
    const big = { ...banded('/a/big', 'INTERACTIVE', 'a', 1), resources: { cpuMillicores: 64_000, memoryBytes: 0, gpuCount: 0, tpuChips: 0 } };
    const small = banded('/a/small', 'INTERACTIVE', 'a', 2);
    const r = scheduleTick({ nowMs: 0, workers: [worker('w', { cores: 2 })], jobs: [big, small], tasks: [...tasks(big, 1), ...tasks(small, 2)] });
    expect(r.assignments.map((x) => x.taskId)).toEqual(['/a/small/0', '/a/small/1']);
  });
});
