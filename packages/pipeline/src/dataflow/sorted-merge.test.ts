import { describe, expect, it } from 'vitest';
import { compareKeys, forEachMerged, mergeSorted } from './sorted-merge.js';
import type { SortedBatchSource } from './sorted-merge.js';

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

/** A source yielding `batches` one after another (empty batches included). */
function batches<T>(list: T[][]): SortedBatchSource<T> {
  let next = 0;
  const source: SortedBatchSource<T> = {
    rows: [],
    index: 0,
    next: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      source.index = 0;
      source.rows = list[next] ?? [];
      next += 1;
      return next <= list.length;
    },
  };
  return source;
}

describe('forEachMerged()', () => {
  it('merges batch sources by key, ties in source order, across empty and partial batches', async () => {
    const out: string[] = [];
    const sources = [
      batches([[{ k: 'a', s: 0 }], [], [{ k: 'c', s: 0 }, { k: 'c', s: 0 }]]),
      batches<{ k: string; s: number }>([]),
      batches([[{ k: 'a', s: 2 }, { k: 'b', s: 2 }], [{ k: 'c', s: 2 }, { k: 'd', s: 2 }]]),
    ];
    let waits = 0;
    await forEachMerged(sources, 'k', (r) => {
      out.push(`${r.k}${r.s}`);
      if (out.length % 2 === 1) return undefined;
      waits += 1;
      return new Promise((resolve) => setImmediate(resolve));
    });
    expect(out).toEqual(['a0', 'a2', 'b2', 'c0', 'c0', 'c2', 'd2']);
    expect(waits).toBe(3);
  });

  it('calls an object visitor\'s visit method, with the same records in the same order as a function', async () => {
    class Collect {
      readonly out: string[] = [];
      visit(r: { k: string; s: number }): Promise<void> | undefined {
        this.out.push(`${r.k}${r.s}`);
        return r.k === 'b' ? new Promise((resolve) => setImmediate(resolve)) : undefined;
      }
    }
    const sources = () => [batches([[{ k: 'a', s: 0 }, { k: 'c', s: 0 }]]), batches([[{ k: 'a', s: 1 }], [{ k: 'b', s: 1 }]])];
    const visitor = new Collect();
    await forEachMerged(sources(), 'k', visitor);
    const out: string[] = [];
    await forEachMerged(sources(), 'k', (r) => {
      out.push(`${r.k}${r.s}`);
      return undefined;
    });
    expect(visitor.out).toEqual(['a0', 'a1', 'b1', 'c0']);
    expect(out).toEqual(visitor.out);
  });

  it('stops at the error a visitor throws', async () => {
    const seen: string[] = [];
    const run = forEachMerged([batches([[{ k: 'a' }, { k: 'b' }]])], 'k', (r) => {
      seen.push(r.k);
      if (r.k === 'a') throw new RangeError('bad record');
      return undefined;
    });
    await expect(run).rejects.toThrow(RangeError);
    expect(seen).toEqual(['a']);
  });
});

describe('compareKeys()', () => {
  it('orders strings by code unit, numbers numerically, nulls first', () => {
    expect(['b', 'a', 'B'].sort(compareKeys)).toEqual(['B', 'a', 'b']);
    expect([10, 9, 2n].sort(compareKeys)).toEqual([2n, 9, 10]);
    expect(compareKeys(null, 'a')).toBe(-1);
  });
});
