import { Executor, ExecutorStep } from '@marin/executor';
import { writeText } from '@marin/rigging';
import { expect } from 'vitest';
import { captureLogger } from './capture-logger.js';
import { runMarin } from './marin-cli.js';

interface GcJson {
  prefix: string;
  candidates: { path: string; action: string }[];
  outside: { experiment: string; path: string }[];
  deleted: string[] | null;
}

async function runOne(prefix: string, name: string, executorInfoBasePath?: string): Promise<string> {
  const step = new ExecutorStep({ name, config: {}, fn: async (_c, ctx) => writeText(`${ctx.outputPath}/data.bin`, 'x') });
  const ex = new Executor({ prefix, logger: captureLogger(), progressStream: { write: () => true }, ...(executorInfoBasePath ? { executorInfoBasePath } : {}) });
  await ex.run([step], { progress: 'plain' });
  return ex.outputPaths.get(step)!;
}

/**
 * On `prefix` (canonical): a live experiment's output, a stale output, and a live experiment (its
 * file among the prefix's experiments) whose output lies under `elsewhere`. `marin gc` given each
 * of `spellings` of the prefix lists and deletes only the stale output, reports the outside
 * reference, and leaves the outside output alone.
 */
export async function checkGcSpellings(prefix: string, elsewhere: string, spellings: readonly string[], exists: (p: string) => Promise<boolean>, env: Record<string, string> = {}): Promise<void> {
  const live = await runOne(prefix, 'spell/live');
  const outside = await runOne(elsewhere, 'spell/outside', `${prefix}/experiments`);
  const stale = `${prefix}/spell/stale-000000`;
  await writeText(`${stale}/.executor_status`, 'SUCCESS');
  await writeText(`${stale}/data.bin`, 'x');
  for (const spelling of spellings) {
    const listing = await runMarin(['gc', '--prefix', spelling, '--json'], env);
    expect(listing.code, listing.stderr).toBe(0);
    const plan = JSON.parse(listing.stdout) as GcJson;
    expect(plan.prefix, spelling).toBe(prefix);
    expect(plan.candidates.map((c) => [c.path, c.action]), spelling).toEqual([[stale, 'delete']]);
    expect(plan.outside.map((r) => r.path), spelling).toEqual([outside]);
    expect(listing.stderr, spelling).toContain(outside);
  }
  const removal = await runMarin(['gc', '--prefix', spellings[0]!, '--delete', '--json'], { ...env, MARIN_LEASE_TIMEOUT_S: '1', MARIN_LEASE_HEARTBEAT_S: '0.2' });
  expect(removal.code, removal.stderr).toBe(0);
  expect((JSON.parse(removal.stdout) as GcJson).deleted).toEqual([stale]);
  expect(await exists(`${stale}/data.bin`)).toBe(false);
  for (const p of [live, outside]) expect(await exists(`${p}/data.bin`), p).toBe(true);
}
