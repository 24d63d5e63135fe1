import { describe, expect, it } from 'vitest';
import { ExecutorError } from '../errors.js';
import { scheduleDag } from './scheduler.js';

interface Node {
  id: string;
  deps: Node[];
}

function node(id: string, ...deps: Node[]): Node {
  return { id, deps };
}

function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

const base = { dependencies: (n: Node) => n.deps, label: (n: Node) => n.id };

describe('scheduleDag()', () => {
  it('runs dependencies before dependents', async () => {
    const a = node('a');
    const b = node('b', a);
    const c = node('c', b);
    const order: string[] = [];
    const r = await scheduleDag({
      ...base,
      nodes: [a, b, c],
      maxConcurrent: 8,
      execute: async (n) => {
        order.push(n.id);
        return 'ran';
      },
    });
    expect(order).toEqual(['a', 'b', 'c']);
    expect([...r.outcomes.values()]).toEqual(['ran', 'ran', 'ran']);
  });

  it('never has more than maxConcurrent nodes active', async () => {
    const nodes = Array.from({ length: 20 }, (_, i) => node(`n${i}`));
    let active = 0;
    let peak = 0;
    await scheduleDag({
      ...base,
      nodes,
      maxConcurrent: 3,
      execute: async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 2));
        active--;
        return 'ran';
      },
    });
    expect(peak).toBe(3);
  });

  it('starts a dependent as soon as its own dependency completes (no level barrier)', async () => {
    const slow = node('slow');
    const fast = node('fast');
    const afterFast = node('afterFast', fast);
    const g = gate();
    const started: string[] = [];
    const run = scheduleDag({
      ...base,
      nodes: [slow, fast, afterFast],
      maxConcurrent: 8,
      execute: async (n) => {
        started.push(n.id);
        if (n === slow) await g.promise;
        if (n === afterFast) g.open();
        return 'ran';
      },
    });
    await run;
    expect(started).toEqual(['slow', 'fast', 'afterFast']);
  });

  it('blocks the dependents of a failed node but completes independent branches', async () => {
    const a = node('a');
    const b = node('b', a);
    const c = node('c');
    const r = await scheduleDag({
      ...base,
      nodes: [a, b, c],
      maxConcurrent: 8,
      execute: async (n) => {
        if (n === a) throw new Error('boom');
        return 'ran';
      },
    });
    expect(r.outcomes.get(a)).toBe('failed');
    expect(r.outcomes.get(b)).toBe('blocked');
    expect(r.outcomes.get(c)).toBe('ran');
    expect(r.failures.map((f) => f.node.id)).toEqual(['a']);
  });

  it('stops starting nodes after a run-aborting error and lets active ones settle', async () => {
    const a = node('a');
    const b = node('b');
    const c = node('c');
    const abort = new ExecutorError('EXECUTOR_PREVIOUSLY_FAILED', 'x');
    const r = await scheduleDag({
      ...base,
      nodes: [a, b, c],
      maxConcurrent: 1,
      abortsRun: (e) => ExecutorError.hasCode(e, 'EXECUTOR_PREVIOUSLY_FAILED'),
      execute: async (n) => {
        if (n === a) throw abort;
        return 'ran';
      },
    });
    expect(r.abortError).toBe(abort);
    expect(r.outcomes.get(b)).toBe('not-started');
    expect(r.outcomes.get(c)).toBe('not-started');
  });

  it('rejects a cycle with EXECUTOR_CYCLE before running anything', async () => {
    const a = node('a');
    const b = node('b', a);
    a.deps.push(b);
    let ran = 0;
    await expect(
      scheduleDag({
        ...base,
        nodes: [a, b],
        maxConcurrent: 2,
        execute: async () => {
          ran++;
          return 'ran';
        },
      }),
    ).rejects.toMatchObject({ code: 'EXECUTOR_CYCLE' });
    expect(ran).toBe(0);
  });
});
