import { describe, expect, it } from 'vitest';
import { mapLimit } from './map-limit.js';

/** A promise with its resolve and reject exposed, so a test decides when each call ends. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('mapLimit()', () => {
  it('keeps the input order and passes the index', async () => {
    const out = await mapLimit([30, 10, 20], 2, async (n, i) => {
      await new Promise((r) => setTimeout(r, n / 10));
      return `${i}:${n}`;
    });
    expect(out).toEqual(['0:30', '1:10', '2:20']);
  });

  it('never has more than `limit` calls in flight', async () => {
    let active = 0;
    let peak = 0;
    await mapLimit(Array.from({ length: 20 }, (_, i) => i), 3, async () => {
      peak = Math.max(peak, ++active);
      await tick();
      active--;
    });
    expect(peak).toBe(3);
  });

  it('treats a limit below 1 as 1 and returns [] for no items', async () => {
    expect(await mapLimit([1, 2], 0, async (n) => n * 2)).toEqual([2, 4]);
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });

  it('starts nothing after a failure, lets in-flight calls settle, then throws the first error', async () => {
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const finished: number[] = [];
    const boom = Object.assign(new Error('boom'), { code: 'BOOM' });
    const p = mapLimit([0, 1, 2, 3], 2, async (i) => {
      started.push(i);
      await gates[i]!.promise;
      finished.push(i);
    });
    let settled = false;
    void p.catch(() => undefined).finally(() => (settled = true));
    await tick();
    expect(started).toEqual([0, 1]);
    gates[0]!.reject(boom);
    await tick();
    expect(started).toEqual([0, 1]);
    expect(settled).toBe(false);
    gates[1]!.resolve();
    await expect(p).rejects.toMatchObject({ code: 'BOOM' });
    expect(finished).toEqual([1]);
  });
});
