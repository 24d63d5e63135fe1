import { describe, expect, it } from 'vitest';
import { compareKeys, mergeSorted } from './sorted-merge.js';

async function* of<T>(items: T[]): AsyncGenerator<T> {
  for (const i of items) yield i;
}

describe('mergeSorted()', () => {
  it('merges sorted streams by key, ties in source order', async () => {
    const out: string[] = [];
    const sources = [of([{ k: 'a', s: 0 }, { k: 'c', s: 0 }]), of([]), of([{ k: 'a', s: 2 }, { k: 'b', s: 2 }, { k: 'd', s: 2 }])];
    for await (const r of mergeSorted(sources, 'k')) out.push(`${r.k}${r.s}`);
    expect(out).toEqual(['a0', 'a2', 'b2', 'c0', 'd2']);
  });
});

describe('compareKeys()', () => {
  it('orders strings by code unit, numbers numerically, nulls first', () => {
    expect(['b', 'a', 'B'].sort(compareKeys)).toEqual(['B', 'a', 'b']);
    expect([10, 9, 2n].sort(compareKeys)).toEqual([2n, 9, 10]);
    expect(compareKeys(null, 'a')).toBe(-1);
  });
});
