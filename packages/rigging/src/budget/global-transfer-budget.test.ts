import { describe, expect, it } from 'vitest';
import { globalTransferBudget } from './mirror-budget.js';

// Vitest isolates each test file, so this file sees a fresh module and an unread variable.
describe('globalTransferBudget()', () => {
  it('reads MARIN_MIRROR_BUDGET_GB once, on first use', () => {
    const before = process.env['MARIN_MIRROR_BUDGET_GB'];
    try {
      process.env['MARIN_MIRROR_BUDGET_GB'] = '0.5';
      const b = globalTransferBudget();
      expect(b.limitBytes).toBe(536870912);
      process.env['MARIN_MIRROR_BUDGET_GB'] = '7';
      expect(globalTransferBudget()).toBe(b);
      expect(globalTransferBudget().limitBytes).toBe(536870912);
    } finally {
      if (before === undefined) delete process.env['MARIN_MIRROR_BUDGET_GB'];
      else process.env['MARIN_MIRROR_BUDGET_GB'] = before;
    }
  });
});
