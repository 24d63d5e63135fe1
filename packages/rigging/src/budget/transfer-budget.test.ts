import { describe, expect, it } from 'vitest';
import { TransferBudget } from './transfer-budget.js';
import { currentMirrorBudget, mirrorBudget } from './mirror-budget.js';

describe('TransferBudget', () => {
  it('increments within the limit, allows reaching it exactly, and accumulates', () => {
    const b = new TransferBudget(100);
    b.record(40, 'a');
    b.record(60, 'b');
    expect(b.bytesUsed).toBe(100);
    expect(b.limitBytes).toBe(100);
  });

  it('throws RIGGING_BUDGET_EXCEEDED with details and leaves usage unchanged', () => {
    const b = new TransferBudget(1024 ** 3);
    b.record(512 * 1024 ** 2, 'gs://x/first');
    let caught: unknown;
    try {
      b.record(600 * 1024 ** 2, 'gs://x/second');
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({
      code: 'RIGGING_BUDGET_EXCEEDED',
      details: { bytesUsed: 512 * 1024 ** 2, attempted: 600 * 1024 ** 2, limit: 1024 ** 3, path: 'gs://x/second' },
    });
    expect((caught as Error).message).toContain('600.0MB');
    expect(b.bytesUsed).toBe(512 * 1024 ** 2);
    b.reset(10);
    expect([b.bytesUsed, b.limitBytes]).toEqual([0, 10]);
  });

  it('never passes the limit under a thousand concurrent records', async () => {
    const b = new TransferBudget(500);
    const results = await Promise.allSettled(Array.from({ length: 1000 }, async (_, i) => b.record(1, `f${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(500);
    expect(b.bytesUsed).toBe(500);
  });
});

describe('mirrorBudget()', () => {
  it('gives fn a fresh budget of floor(GB × 1024³) and returns its result', async () => {
    expect(currentMirrorBudget()).toBeUndefined();
    const limit = await mirrorBudget(0.5, async () => currentMirrorBudget()?.limitBytes);
    expect(limit).toBe(536870912);
    expect(currentMirrorBudget()).toBeUndefined();
  });

  it('lets a nested scope win inside and restores the outer one after', async () => {
    await mirrorBudget(1, async () => {
      const outer = currentMirrorBudget();
      await mirrorBudget(2, async () => {
        await new Promise((r) => setTimeout(r, 1));
        expect(currentMirrorBudget()?.limitBytes).toBe(2 * 1024 ** 3);
      });
      expect(currentMirrorBudget()).toBe(outer);
    });
  });

  it('keeps concurrent scopes apart', async () => {
    const used = await Promise.all(
      [1, 2, 3].map((n) =>
        mirrorBudget(1, async () => {
          for (let i = 0; i < n; i++) {
            await new Promise((r) => setTimeout(r, 1));
            currentMirrorBudget()?.record(10, 'x');
          }
          return currentMirrorBudget()?.bytesUsed;
        }),
      ),
    );
    expect(used).toEqual([10, 20, 30]);
  });

  it('rejects a negative budget', () => {
    expect(() => mirrorBudget(-1, () => 0)).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
  });
});
