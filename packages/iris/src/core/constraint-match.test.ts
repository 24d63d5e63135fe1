import { describe, expect, it } from 'vitest';
import { jobWithTasks, placement, tick, worker } from '../../test/helpers/scheduler-fixtures.js';
import { constraintMatches, formatConstraint, numericValue } from './constraint-match.js';
import type { Constraint, WorkerAttributes } from './constraints.js';

const attrs: WorkerAttributes = { region: 'us-east1', 'tpu-worker-id': 0, priority: 5, ratio: 0.75, count: '3', zone: 'a' };

function holds(c: Constraint): boolean {
  return constraintMatches(c, attrs);
}

describe('constraintMatches()', () => {
  it('EQ and NE match and mismatch', () => {
    expect(holds({ key: 'region', op: 'EQ', value: 'us-east1' })).toBe(true);
    expect(holds({ key: 'region', op: 'EQ', value: 'us-west1' })).toBe(false);
    expect(holds({ key: 'region', op: 'NE', value: 'us-west1' })).toBe(true);
    expect(holds({ key: 'region', op: 'NE', value: 'us-east1' })).toBe(false);
  });

  it('compares numerically when both sides are numeric, so "0" matches 0', () => {
    expect(holds({ key: 'tpu-worker-id', op: 'EQ', value: '0' })).toBe(true);
    expect(holds({ key: 'count', op: 'EQ', value: 3 })).toBe(true);
    expect(holds({ key: 'count', op: 'EQ', value: '3.0' })).toBe(true);
    expect(holds({ key: 'tpu-worker-id', op: 'NE', value: '0' })).toBe(false);
  });

  it('EXISTS and NOT_EXISTS', () => {
    expect(holds({ key: 'region', op: 'EXISTS' })).toBe(true);
    expect(holds({ key: 'gpu-variant', op: 'EXISTS' })).toBe(false);
    expect(holds({ key: 'gpu-variant', op: 'NOT_EXISTS' })).toBe(true);
    expect(holds({ key: 'region', op: 'NOT_EXISTS' })).toBe(false);
  });

  it('GT GE LT LE on int boundaries', () => {
    expect(holds({ key: 'priority', op: 'GT', value: 4 })).toBe(true);
    expect(holds({ key: 'priority', op: 'GT', value: 5 })).toBe(false);
    expect(holds({ key: 'priority', op: 'GE', value: 5 })).toBe(true);
    expect(holds({ key: 'priority', op: 'GE', value: 6 })).toBe(false);
    expect(holds({ key: 'priority', op: 'LT', value: 6 })).toBe(true);
    expect(holds({ key: 'priority', op: 'LT', value: 5 })).toBe(false);
    expect(holds({ key: 'priority', op: 'LE', value: 5 })).toBe(true);
    expect(holds({ key: 'priority', op: 'LE', value: 4 })).toBe(false);
  });

  it('GT GE LT LE on floats, and never on non-numeric sides', () => {
    expect(holds({ key: 'ratio', op: 'GT', value: 0.5 })).toBe(true);
    expect(holds({ key: 'ratio', op: 'LT', value: 0.8 })).toBe(true);
    expect(holds({ key: 'ratio', op: 'GE', value: '0.75' })).toBe(true);
    expect(holds({ key: 'ratio', op: 'LE', value: 0.7 })).toBe(false);
    expect(holds({ key: 'region', op: 'GT', value: 'a' })).toBe(false);
    expect(holds({ key: 'priority', op: 'GT', value: 'abc' })).toBe(false);
  });

  it('IN hits and misses', () => {
    expect(holds({ key: 'region', op: 'IN', values: ['us-west1', 'us-east1'] })).toBe(true);
    expect(holds({ key: 'region', op: 'IN', values: ['eu-west4'] })).toBe(false);
    expect(holds({ key: 'tpu-worker-id', op: 'IN', values: ['0', '1'] })).toBe(true);
  });

  it('fails every op on a missing attribute except NOT_EXISTS', () => {
    for (const op of ['EQ', 'NE', 'EXISTS', 'GT', 'GE', 'LT', 'LE', 'IN'] as const) {
      expect(holds({ key: 'missing', op, value: 1, values: [1] })).toBe(false);
    }
    expect(holds({ key: 'missing', op: 'NOT_EXISTS' })).toBe(true);
  });

  it('reads numbers only from whole decimal strings', () => {
    expect(numericValue('12')).toBe(12);
    expect(numericValue('-1.5e2')).toBe(-150);
    expect(numericValue('')).toBeUndefined();
    expect(numericValue('12abc')).toBeUndefined();
    expect(numericValue('v5litepod-16')).toBeUndefined();
  });

  it('formats constraints for diagnostics', () => {
    expect(formatConstraint({ key: 'device-variant', op: 'EQ', value: 'v5litepod-16' })).toBe('device-variant EQ v5litepod-16');
    expect(formatConstraint({ key: 'region', op: 'IN', values: ['a', 'b'] })).toBe('region IN [a, b]');
    expect(formatConstraint({ key: 'taint:x', op: 'EXISTS' })).toBe('taint:x EXISTS');
  });
});

describe('scheduleTick() with constraints', () => {
  const workers = [
    worker('east', { attributes: { region: 'us-east1', priority: 1 } }),
    worker('west', { attributes: { region: 'us-west1', priority: 2, preemptible: 'false' } }),
    worker('bare'),
  ];
  const placeOne = (constraints: Constraint[]): string | undefined =>
    placement(tick(workers, [jobWithTasks('/u/j', 1, { constraints })]))['/u/j/0'];

  it('routes by EQ, NE, EXISTS, NOT_EXISTS, GT and IN', () => {
    expect(placeOne([{ key: 'region', op: 'EQ', value: 'us-west1' }])).toBe('west');
    expect(placeOne([{ key: 'region', op: 'NE', value: 'us-east1' }])).toBe('west');
    expect(placeOne([{ key: 'region', op: 'EXISTS' }])).toBe('east');
    expect(placeOne([{ key: 'region', op: 'NOT_EXISTS' }])).toBe('bare');
    expect(placeOne([{ key: 'priority', op: 'GT', value: 1 }])).toBe('west');
    expect(placeOne([{ key: 'region', op: 'IN', values: ['eu', 'us-west1'] }])).toBe('west');
  });

  it('ANDs several REQUIRED constraints', () => {
    expect(
      placeOne([
        { key: 'region', op: 'EXISTS' },
        { key: 'priority', op: 'LE', value: 1 },
      ]),
    ).toBe('east');
    const none = tick(workers, [
      jobWithTasks('/u/none', 1, {
        constraints: [
          { key: 'region', op: 'EQ', value: 'us-east1' },
          { key: 'priority', op: 'GE', value: 2 },
        ],
      }),
    ]);
    expect(none.assignments).toEqual([]);
    expect(none.pendingJobs[0]).toMatchObject({ canBeScheduled: false });
    expect(none.pendingJobs[0]?.reason).toContain('priority GE 2');
  });

  it('routes preemptible EQ false to matching workers only', () => {
    expect(placeOne([{ key: 'preemptible', op: 'EQ', value: 'false' }])).toBe('west');
  });

  it('schedules nowhere when a missing attribute is required', () => {
    const result = tick(workers, [jobWithTasks('/u/gpu', 1, { constraints: [{ key: 'gpu-variant', op: 'EQ', value: 'h100' }] })]);
    expect(result.assignments).toEqual([]);
    expect(result.pendingJobs[0]?.reason).toContain('gpu-variant');
  });

  it('ranks by PREFERRED constraints but never excludes', () => {
    expect(placeOne([{ key: 'region', op: 'EQ', value: 'us-west1', mode: 'PREFERRED' }])).toBe('west');
    expect(placeOne([{ key: 'region', op: 'EQ', value: 'nowhere', mode: 'PREFERRED' }])).toBe('east');
    const two = tick(workers, [jobWithTasks('/u/p', 2, { constraints: [{ key: 'region', op: 'NOT_EXISTS', mode: 'PREFERRED' }] })]);
    // The score outranks this tick's assignment count, so both go to the preferred worker.
    expect(placement(two)).toEqual({ '/u/p/0': 'bare', '/u/p/1': 'bare' });
  });
});
