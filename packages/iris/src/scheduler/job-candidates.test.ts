import { describe, expect, it } from 'vitest';
import { worker } from '../../test/helpers/scheduler-fixtures.js';
import { ConstraintIndex } from './constraint-index.js';
import { CandidateCache, RESERVATION_ATTRIBUTE } from './job-candidates.js';
import type { Constraint } from './types.js';

const workers = [
  worker('w0', { attributes: { region: 'east', zone: 1, pool: 'a' } }),
  worker('w1', { attributes: { region: 'west', zone: '2', pool: 'b' } }),
  worker('w2', { attributes: { region: 'east', zone: 3, [RESERVATION_ATTRIBUTE]: '/u/r' } }),
];

const members = (cache: CandidateCache, constraints: Constraint[], scope?: string): number[] => [...cache.get(constraints, scope).order];

describe('CandidateCache', () => {
  it('shares one entry between lists equal field by field, whatever arrays and objects carry them', () => {
    const cache = new CandidateCache(new ConstraintIndex(workers));
    const first = cache.get([{ key: 'region', op: 'EQ', value: 'east' }]);
    expect(cache.get([{ key: 'region', op: 'EQ', value: 'east', mode: 'REQUIRED' }])).toBe(first);
    expect(cache.get([{ op: 'EQ', value: 'east', key: 'region' }])).toBe(first);
    expect([...first.order]).toEqual([0]);
  });

  it('keeps lists apart that differ in any field, in operand types, in length or in reservation scope', () => {
    const cache = new CandidateCache(new ConstraintIndex(workers));
    const lists: Array<[Constraint[], string | undefined]> = [
      [[], undefined],
      [[], '/u/r'],
      [[{ key: 'region', op: 'EQ', value: 'east' }], undefined],
      [[{ key: 'region', op: 'NE', value: 'east' }], undefined],
      [[{ key: 'region', op: 'EQ', value: 'west' }], undefined],
      [[{ key: 'region', op: 'EQ', value: 'east', mode: 'PREFERRED' }], undefined],
      [[{ key: 'zone', op: 'EQ', value: 2 }], undefined],
      [[{ key: 'zone', op: 'EQ', value: '2' }], undefined],
      [[{ key: 'zone', op: 'IN', values: [1, 3] }], undefined],
      [[{ key: 'zone', op: 'IN', values: [1] }], undefined],
      [[{ key: 'zone', op: 'IN', values: [1, 3] }, { key: 'pool', op: 'EXISTS' }], undefined],
      // A one-constraint list with a scope against a two-constraint list whose second key spells that scope.
      [[{ key: 'pool', op: 'EXISTS' }], 'zone'],
      [[{ key: 'pool', op: 'EXISTS' }, { key: 'zone', op: 'EXISTS' }], undefined],
    ];
    const entries = lists.map(([constraints, scope]) => cache.get(constraints, scope));
    expect(new Set(entries).size).toBe(lists.length);
    // Numeric and string operands match alike; the entries are still computed right.
    expect(members(cache, [{ key: 'zone', op: 'EQ', value: 2 }])).toEqual([1]);
    expect(members(cache, [{ key: 'zone', op: 'EQ', value: '2' }])).toEqual([1]);
    expect(members(cache, [{ key: 'zone', op: 'IN', values: [1, 3] }])).toEqual([0]);
    expect(members(cache, [], '/u/r')).toEqual([2, 0, 1]);
    expect(members(cache, [])).toEqual([0, 1]);
  });
});
