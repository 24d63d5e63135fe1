import { setTimeout as sleep } from 'node:timers/promises';
import { Executor, ExecutorStep, versioned } from '@marin/executor';
import { writeBytes } from '@marin/rigging';
import { expect } from 'vitest';
import { runMarin } from './marin-cli.js';
import { captureLogger } from './capture-logger.js';
import { startFixture } from './fixture-process.js';
import type { FixtureProcess } from './fixture-process.js';

/** The experiments of a gc test and what a collection must find. */
export interface GcScenario {
  /** Experiments created before this are superseded. */
  since: Date;
  /** Outputs only the superseded experiment references. */
  superseded: string[];
  /** Outputs the live experiments reference. */
  reachable: string[];
  /** The output of a step still RUNNING (its process holds the lease), referenced only by a superseded experiment. */
  running: string;
  /** The process running it; dispose to kill it. */
  runner: FixtureProcess;
}

function steps(n: number): { raw: ExecutorStep; tok: ExecutorStep; train: ExecutorStep } {
  const write = (file: string, bytes: number) => async (_c: unknown, ctx: { outputPath: string }) => {
    await writeBytes(`${ctx.outputPath}/${file}`, Buffer.alloc(bytes, 7));
  };
  const raw = new ExecutorStep({ name: 'gc/raw', config: {}, fn: write('data.bin', 1024) });
  const tok = new ExecutorStep({ name: 'gc/tok', config: { input: raw, n: versioned(n) }, fn: write('tokens.bin', 4096) });
  const train = new ExecutorStep({ name: 'gc/train', config: { data: tok }, fn: write('model.bin', 8192) });
  return { raw, tok, train };
}

/**
 * Three experiments on `prefix`, one superseded: v1 (raw → tok n=1 → train), then, after `since`,
 * v2 (the same with n=2, sharing raw) and an unrelated one. Before all of them a real executor
 * process starts a long step that stays RUNNING with a live lease; its experiment is superseded too.
 */
export async function buildGcScenario(prefix: string, env: Record<string, string> = {}): Promise<GcScenario> {
  const runner = startFixture('shared-step.ts', {
    args: ['--prefix', prefix],
    env: { ...env, STEP_SLEEP_MS: '600000', MARIN_LEASE_HEARTBEAT_S: '0.5', MARIN_LEASE_TIMEOUT_S: '30' },
  });
  await runner.waitForStdout('STEP-STARTED');
  const run = async (entries: ExecutorStep[]): Promise<Executor> => {
    const ex = new Executor({ prefix, logger: captureLogger(), progressStream: { write: () => true } });
    await ex.run(entries, { progress: 'plain' });
    return ex;
  };
  const v1 = steps(1);
  const first = await run([v1.train]);
  await sleep(50);
  const since = new Date();
  await sleep(50);
  const v2 = steps(2);
  const second = await run([v2.train]);
  const other = new ExecutorStep({ name: 'gc/other', config: {}, fn: async (_c, ctx) => writeBytes(`${ctx.outputPath}/x.bin`, Buffer.alloc(16)) });
  const third = await run([other]);
  const probe = new Executor({ prefix, logger: captureLogger() });
  const shared = new ExecutorStep({ name: 'shared/a', config: {}, fn: null });
  probe.computeVersion(shared);
  return {
    since,
    superseded: [first.outputPaths.get(v1.tok)!, first.outputPaths.get(v1.train)!].sort(),
    reachable: [second.outputPaths.get(v2.raw)!, second.outputPaths.get(v2.tok)!, second.outputPaths.get(v2.train)!, third.outputPaths.get(other)!].sort(),
    running: probe.outputPaths.get(shared)!,
    runner,
  };
}

interface GcJson {
  experiments: { path: string; state: string; liveBecause: string | null }[];
  candidates: { path: string; action: string; reason: string | null; sizeBytes: number; status: string | null }[];
  deleted: string[] | null;
  skipped: { path: string; reason: string }[] | null;
}

/**
 * Runs `marin gc` as a user would against the scenario: the dry listing shows exactly the
 * superseded outputs (the running step's experiment is live, so that step is not listed), `--delete` removes them and nothing reachable,
 * and the running step is never touched. `exists` checks a directory on the prefix's backend.
 */
export async function checkGcEndToEnd(prefix: string, scenario: GcScenario, exists: (path: string) => Promise<boolean>, env: Record<string, string> = {}): Promise<void> {
  const since = scenario.since.toISOString();
  const listing = await runMarin(['gc', '--prefix', prefix, '--since', since, '--json'], env);
  expect(listing.code, listing.stderr).toBe(0);
  const plan = JSON.parse(listing.stdout) as GcJson;
  // The running step's experiment is older than --since but live: one of its steps is in use.
  expect(plan.experiments.map((e) => [e.state, e.liveBecause]).sort()).toEqual([['live', 'running'], ['live', 'since'], ['live', 'since'], ['superseded', null]]);
  expect(plan.candidates.filter((c) => c.action === 'delete').map((c) => c.path).sort()).toEqual(scenario.superseded);
  // Its experiment is live, so the running step is reachable, not even a candidate.
  expect(plan.candidates.filter((c) => c.action === 'keep')).toEqual([]);
  expect(plan.candidates.map((c) => c.path)).not.toContain(scenario.running);
  expect(plan.candidates.find((c) => c.path.includes('gc/train'))?.sizeBytes).toBeGreaterThanOrEqual(8192);
  expect(plan.deleted).toBeNull();
  for (const p of [...scenario.superseded, ...scenario.reachable, scenario.running]) expect(await exists(p), p).toBe(true);

  const table = await runMarin(['gc', '--prefix', prefix, '--since', since], env);
  expect(table.code, table.stderr).toBe(0);
  expect(table.stdout).toMatch(/^OUTPUT\s+STATUS\s+SIZE\s+AGE\s+ACTION$/m);
  expect(table.stdout).toContain('2 unreferenced output(s)');
  expect(table.stdout).toContain('rerun with --delete');

  // Deleting waits longer than the lease staleness: short leases keep the test quick.
  const deleteEnv = { ...env, MARIN_LEASE_TIMEOUT_S: '2', MARIN_LEASE_HEARTBEAT_S: '0.5' };
  const removal = await runMarin(['gc', '--prefix', prefix, '--since', since, '--delete', '--json'], deleteEnv);
  expect(removal.code, removal.stderr).toBe(0);
  const done = JSON.parse(removal.stdout) as GcJson;
  expect([...(done.deleted ?? [])].sort()).toEqual(scenario.superseded);
  for (const p of scenario.superseded) expect(await exists(p), p).toBe(false);
  for (const p of [...scenario.reachable, scenario.running]) expect(await exists(p), p).toBe(true);

  // Nothing left to collect.
  const again = JSON.parse((await runMarin(['gc', '--prefix', prefix, '--since', since, '--delete', '--json'], deleteEnv)).stdout) as GcJson;
  expect(again.deleted).toEqual([]);
  expect(again.candidates).toEqual([]);
  expect(scenario.runner.child.exitCode).toBeNull();
}
