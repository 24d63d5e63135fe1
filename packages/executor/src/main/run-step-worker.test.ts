import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { mirrored } from '../dag/mirrored-value.js';
import { versioned } from '../dag/versioned-value.js';
import type { StepContext } from '../dag/types.js';
import { VersionGraph } from '../versioning/version-graph.js';
import { findStepByOutputPath, runStepWorker } from './run-step-worker.js';

const silent = { info: () => {}, warn: () => {} };

describe('findStepByOutputPath()', () => {
  it('finds any versioned step by output path, pseudo-only ones included', () => {
    const parent = new ExecutorStep({ name: 'parent', fn: () => {}, config: { n: versioned(1) } });
    const child = new ExecutorStep({ name: 'child', fn: () => {}, config: { ckpt: parent.cd('ckpt').nonblocking() } });
    const graph = new VersionGraph({ prefix: '/p' });
    graph.computeVersion(child, false);
    expect(graph.isPseudoDep.get(parent)).toBe(true);
    const found = findStepByOutputPath([child], '/p', graph.outputPaths.get(parent)!);
    expect(found.step).toBe(parent);
    expect(found.label).toBe(graph.label(parent));
    expect(findStepByOutputPath([child.asInputName()], '/p', graph.outputPaths.get(child)!).step).toBe(child);
  });

  it('throws EXECUTOR_INVALID_ARGUMENT (reason step-not-found) for a path the DAG does not have', () => {
    const a = new ExecutorStep({ name: 'a', fn: () => {}, config: {} });
    expect(() => findStepByOutputPath([a], '/p', '/p/a-000000')).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ reason: 'step-not-found', outputPath: '/p/a-000000' }) }),
    );
  });

  it('computes paths under the given prefix: the same step under another prefix is not found', () => {
    const a = new ExecutorStep({ name: 'a', fn: () => {}, config: {} });
    const graph = new VersionGraph({ prefix: '/p' });
    graph.computeVersion(a, false);
    expect(() => findStepByOutputPath([a], '/q', graph.outputPaths.get(a)!)).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
  });
});

describe('runStepWorker()', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'run-step-worker-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function setup(fn: (config: unknown, ctx: StepContext) => unknown, config: unknown = { n: versioned(1) }) {
    const step = new ExecutorStep({ name: 'w', fn, config });
    const graph = new VersionGraph({ prefix: join(dir, 'prefix') });
    graph.computeVersion(step, false);
    return { step, outputPath: graph.outputPaths.get(step)! };
  }

  it('runs the step with the parsed config (floats become numbers) and returns 0, writing nothing itself', async () => {
    let seen: { config: unknown; ctx: StepContext } | undefined;
    const { step, outputPath } = setup((config, ctx) => void (seen = { config, ctx }));
    const file = join(dir, 'step_config.json');
    await writeFile(file, '{"n": 1.0, "path": "/x", "nested": {"f": 2.5}}');
    const errors: string[] = [];
    const code = await runStepWorker({ steps: [step], prefix: join(dir, 'prefix'), outputPath, stepConfigFile: file, logger: silent, writeError: (t) => void errors.push(t) });
    expect(code, errors.join('')).toBe(0);
    expect(seen?.config).toEqual({ n: 1, path: '/x', nested: { f: 2.5 } });
    expect(seen?.ctx).toMatchObject({ name: 'w', outputPath });
    expect(seen?.ctx.signal.aborted).toBe(false);
    expect(await readdir(dir)).toEqual(['step_config.json']);
  });

  it('runs inside mirrorBudget when the step has mirrored inputs', async () => {
    const { currentMirrorBudget } = await import('@marin/rigging');
    let limit: number | undefined;
    const { step, outputPath } = setup(() => void (limit = currentMirrorBudget()?.limitBytes), { x: mirrored(versioned('docs/x'), { budgetGb: 7 }) });
    const file = join(dir, 'step_config.json');
    await writeFile(file, '{"x": "mirror://docs/x"}');
    const code = await runStepWorker({ steps: [step], prefix: join(dir, 'prefix'), outputPath, stepConfigFile: file, logger: silent, writeError: () => {} });
    expect(code).toBe(0);
    expect(limit).toBe(7 * 1024 ** 3);
  });

  it('returns 1 and prints the error when the function throws, the config file is missing or the step is unknown', async () => {
    const { step, outputPath } = setup(() => {
      throw new Error('worker boom');
    });
    const file = join(dir, 'step_config.json');
    await writeFile(file, '{}');
    const errors: string[] = [];
    const run = (o: { outputPath?: string; stepConfigFile?: string }) =>
      runStepWorker({ steps: [step], prefix: join(dir, 'prefix'), outputPath: o.outputPath ?? outputPath, stepConfigFile: o.stepConfigFile ?? file, logger: silent, writeError: (t) => void errors.push(t) });
    expect(await run({})).toBe(1);
    expect(errors.pop()).toContain('worker boom');
    expect(await run({ stepConfigFile: join(dir, 'missing.json') })).toBe(1);
    expect(errors.pop()).toContain('missing.json');
    expect(await run({ outputPath: join(dir, 'prefix', 'nope-000000') })).toBe(1);
    expect(errors.pop()).toContain('not found in the rebuilt DAG');
  });

  it('aborts the step’s signal on SIGTERM; a step that honours it fails the worker with exit code 1', async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let signal: AbortSignal | undefined;
    const { step, outputPath } = setup(async (_c, ctx) => {
      signal = ctx.signal;
      started();
      await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
    });
    const file = join(dir, 'step_config.json');
    await writeFile(file, '{}');
    const before = process.listenerCount('SIGTERM');
    const errors: string[] = [];
    const result = runStepWorker({ steps: [step], prefix: join(dir, 'prefix'), outputPath, stepConfigFile: file, logger: silent, writeError: (t) => void errors.push(t) });
    await running;
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await result).toBe(1);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toMatchObject({ code: 'EXECUTOR_STEP_FAILED' });
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
