import type { IrisClient } from '../client/iris-client.js';
import type { UserBudget } from '../core/job-types.js';
import { IrisError } from '../errors.js';
import { requireConnection } from './cli-context.js';
import type { CliIo } from './cli-context.js';
import { formatTable } from './cli-format.js';
import { parseNumberFlag, parsePriorityFlag } from './cli-options.js';

async function withClient<T>(controller: string | undefined, io: CliIo, fn: (c: IrisClient) => Promise<T>): Promise<T> {
  await using connection = await requireConnection(controller, io.env);
  return await connection.use(fn);
}

function budgetRow(b: UserBudget): string[] {
  return [b.user, b.budgetLimit === 0 ? 'unlimited' : String(b.budgetLimit), b.maxBand ?? '-', String(b.spend)];
}

function print(io: CliIo, budgets: readonly UserBudget[], json: boolean | undefined, single: boolean): void {
  if (json) io.stdout(`${JSON.stringify(single ? budgets[0] : budgets, null, 2)}\n`);
  else io.stdout(`${formatTable(['USER', 'LIMIT', 'MAX BAND', 'SPEND'], budgets.map(budgetRow))}\n`);
}

/** Flags of `iris user budget set`. */
export interface UserBudgetSetFlags {
  controller?: string;
  limit?: string;
  maxBand?: string;
  json?: boolean;
}

/** `iris user budget set USER [--limit N] [--max-band B|none]`: unset flags keep their stored values. */
export async function userBudgetSetCommand(user: string, flags: UserBudgetSetFlags, io: CliIo): Promise<number> {
  const limit = flags.limit === undefined ? undefined : parseNumberFlag('--limit', flags.limit, true);
  const maxBand = flags.maxBand === undefined ? undefined : flags.maxBand.toLowerCase() === 'none' ? null : parsePriorityFlag('--max-band', flags.maxBand);
  if (limit === undefined && maxBand === undefined) throw new IrisError('IRIS_INVALID_ARGUMENT', 'give --limit, --max-band or both');
  return withClient(flags.controller, io, async (c) => {
    const current = await c.getUserBudget(user);
    const budget = await c.setUserBudget({ user, budgetLimit: limit ?? current.budgetLimit, maxBand: maxBand === undefined ? current.maxBand : maxBand });
    print(io, [budget], flags.json, true);
    return 0;
  });
}

/** `iris user budget get USER [--json]`. */
export async function userBudgetGetCommand(user: string, flags: { controller?: string; json?: boolean }, io: CliIo): Promise<number> {
  return withClient(flags.controller, io, async (c) => {
    print(io, [await c.getUserBudget(user)], flags.json, true);
    return 0;
  });
}

/** `iris user budget list [--json]`. */
export async function userBudgetListCommand(flags: { controller?: string; json?: boolean }, io: CliIo): Promise<number> {
  return withClient(flags.controller, io, async (c) => {
    print(io, await c.listUserBudgets(), flags.json, false);
    return 0;
  });
}
