import { AsyncLocalStorage } from 'node:async_hooks';
import { RiggingError } from '../errors.js';
import { BYTES_PER_GB, TransferBudget } from './transfer-budget.js';

const scope = new AsyncLocalStorage<TransferBudget>();
let globalBudget: TransferBudget | undefined;

/**
 * Runs `fn` with a fresh `TransferBudget(floor(budgetGb × 1024³))` as the active mirror budget for
 * its async continuations; nested scopes win inside and the outer one returns afterwards.
 * Returns `fn`'s result.
 *
 * @example
 * await mirrorBudget(0.5, () => readText('mirror://tokenized/shard-0.jsonl'));
 */
export function mirrorBudget<T>(budgetGb: number, fn: () => T): T {
  if (!Number.isFinite(budgetGb) || budgetGb < 0) {
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `mirror budget must be a non-negative number of GB, got ${budgetGb}`, {
      details: { path: '', operation: 'mirrorBudget', budgetGb },
    });
  }
  return scope.run(new TransferBudget(Math.floor(budgetGb * BYTES_PER_GB)), fn);
}

/** The budget of the innermost {@link mirrorBudget} scope, or `undefined` outside any. */
export function currentMirrorBudget(): TransferBudget | undefined {
  return scope.getStore();
}

/**
 * The process-wide budget, limited by `MARIN_MIRROR_BUDGET_GB` (GB, float, default 10), read once on
 * first use.
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT if the variable is non-numeric or negative.
 */
export function globalTransferBudget(): TransferBudget {
  if (globalBudget !== undefined) return globalBudget;
  const raw = process.env['MARIN_MIRROR_BUDGET_GB'];
  let gb = 10;
  if (raw !== undefined && raw.trim() !== '') {
    gb = Number(raw);
    if (!Number.isFinite(gb) || gb < 0) {
      throw new RiggingError('RIGGING_INVALID_ARGUMENT', `MARIN_MIRROR_BUDGET_GB must be a non-negative number, got "${raw}"`, {
        details: { path: '', operation: 'globalTransferBudget', value: raw },
      });
    }
  }
  globalBudget = new TransferBudget(Math.floor(gb * BYTES_PER_GB));
  return globalBudget;
}
