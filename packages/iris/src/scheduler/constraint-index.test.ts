import { describe, expect, it } from 'vitest';
import { worker } from '../../test/helpers/scheduler-fixtures.js';
import { ConstraintIndex } from './constraint-index.js';
import { constraintMatches } from '../core/constraint-match.js';
import type { Constraint, SchedulerWorker } from './types.js';

const workers: SchedulerWorker[] = [
  worker('a', { attributes: { region: 'us-east1', gen: 1, id: '0' } }),
  worker('b', { attributes: { region: 'us-west4', gen: 2.5, id: 1 } }),
  worker('c', { attributes: { region: 'us-east1', gen: '3' } }),
  worker('d', { healthy: false, attributes: { region: 'us-east1', gen: 4 } }),
  worker('e', { attributes: {} }),
];

function members(mask: Uint8Array): string[] {
  return workers.filter((_, i) => mask[i] === 1).map((w) => w.workerId);
}

describe('ConstraintIndex', () => {
  const index = new ConstraintIndex(workers);

  it('agrees with constraintMatches for every op on healthy workers', () => {
    const cases: Constraint[] = [
      { key: 'region', op: 'EQ', value: 'us-east1' },
      { key: 'region', op: 'NE', value: 'us-east1' },
      { key: 'region', op: 'EXISTS' },
      { key: 'region', op: 'NOT_EXISTS' },
      { key: 'gen', op: 'GT', value: 1 },
      { key: 'gen', op: 'GE', value: '2.5' },
      { key: 'gen', op: 'LT', value: 3 },
      { key: 'gen', op: 'LE', value: 3 },
      { key: 'id', op: 'IN', values: [0, '1'] },
      { key: 'id', op: 'EQ', value: 0 },
      { key: 'missing', op: 'EQ', value: 'x' },
    ];
    for (const c of cases) {
      const expected = workers.filter((w) => w.healthy && constraintMatches(c, w.attributes)).map((w) => w.workerId);
      expect(members(index.match(c)), JSON.stringify(c)).toEqual(expected);
    }
  });

  it('never includes unhealthy workers, even for NOT_EXISTS', () => {
    expect(members(index.match({ key: 'nothing', op: 'NOT_EXISTS' }))).toEqual(['a', 'b', 'c', 'e']);
    expect(index.healthyCount).toBe(4);
  });

  it('memoises masks per constraint', () => {
    const c: Constraint = { key: 'region', op: 'EQ', value: 'us-east1' };
    expect(index.match(c)).toBe(index.match({ ...c }));
  });

  it('reports the constraint that empties the set and how many workers were left before it', () => {
    const { mask, emptiedBy } = index.filter([
      { key: 'region', op: 'EQ', value: 'us-east1' },
      { key: 'gen', op: 'GT', value: 5 },
    ]);
    expect(members(mask)).toEqual([]);
    expect(emptiedBy).toEqual({ constraint: { key: 'gen', op: 'GT', value: 5 }, before: 2 });
    expect(index.filter([{ key: 'region', op: 'EXISTS' }]).emptiedBy).toBeUndefined();
  });
});
