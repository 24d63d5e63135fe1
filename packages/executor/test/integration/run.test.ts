import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { currentMirrorBudget } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { Executor, ExecutorError, ExecutorStep, InlineStepRunner, mirrored, thisOutputPath, versioned } from '@marin/executor';
import type { StepContext, StepRunner } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { infoOf, listTree, statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function newExecutor(prefix: string): Executor {
  return new Executor({ prefix, logger: captureLogger() });
}

const plain = { progress: 'plain' as const };

describe('Executor.run()', () => {
  it('runs a→b in order, resolving inputs, output_path and unversioned values; both end SUCCESS', async () => {
    await using tmp = await makeTempDir();
    const order: string[] = [];
    let received: unknown = null;
    const a = new ExecutorStep({
      name: 'a',
      config: { n: versioned(1) },
      fn: async (_c, ctx: StepContext) => {
        order.push('a');
        await writeFile(join(ctx.outputPath, 'sub'), 'x');
      },
    });
    const b = new ExecutorStep({
      name: 'b',
      config: { input_path: a.cd('sub'), output_path: thisOutputPath(), note: 'unversioned', k: 3 },
      fn: (config) => {
        order.push('b');
        received = config;
      },
    });
    const ex = newExecutor(tmp.path);
    const paths = await ex.run([b], plain);
    const outA = paths.get(a)!;
    const outB = paths.get(b)!;
    expect(order).toEqual(['a', 'b']);
    expect(outA).toBe(join(tmp.path, `a-${ex.hashedVersions.get(a)}`));
    expect(received).toEqual({ input_path: `${outA}/sub`, output_path: outB, note: 'unversioned', k: 3 });
    expect(await statusOf(outA)).toBe('SUCCESS');
    expect(await statusOf(outB)).toBe('SUCCESS');
  });

  it('writes the experiment JSON and every .executor_info with prefix, name, output_path, config and version', async () => {
    await using tmp = await makeTempDir();
    const a = new ExecutorStep({ name: 'a', config: { n: versioned(2), plain: 'x' }, fn: () => {} });
    const b = new ExecutorStep({ name: 'b', config: { input_path: a }, fn: function consume() {} });
    const ex = newExecutor(tmp.path);
    const paths = await ex.run([b], plain);
    const infoB = await infoOf(paths.get(b)!);
    expect(Object.keys(infoB)).toEqual(['name', 'fn_name', 'config', 'override_output_path', 'version', 'dependencies', 'output_path']);
    expect(infoB).toEqual({
      name: 'b',
      fn_name: 'consume',
      config: { input_path: paths.get(a) },
      override_output_path: null,
      version: { name: 'b', config: { input_path: 'DEP[0]' }, dependencies: [{ name: 'a', config: { n: 2 }, dependencies: [] }] },
      dependencies: [paths.get(a)],
      output_path: paths.get(b),
    });
    expect((await infoOf(paths.get(a)!))['config']).toEqual({ n: 2, plain: 'x' });
    const infoPath = ex.executorInfoPath!;
    expect(infoPath.startsWith(join(tmp.path, 'experiments') + '/')).toBe(true);
    const experiment = JSON.parse(await readFile(infoPath, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(experiment)).toEqual(['worker_id', 'git_commit', 'caller_path', 'created_date', 'user', 'prefix', 'steps']);
    expect(experiment['prefix']).toBe(tmp.path);
    expect((experiment['steps'] as { name: string }[]).map((s) => s.name)).toEqual(['a', 'b']);
    expect(experiment['created_date']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
  });

  it('skips completed steps on a second run without rewriting their outputs', async () => {
    await using tmp = await makeTempDir();
    let runs = 0;
    const mk = (): ExecutorStep =>
      new ExecutorStep({
        name: 'a',
        config: {},
        fn: async (_c, ctx: StepContext) => {
          runs++;
          await writeFile(join(ctx.outputPath, 'data.txt'), 'x');
        },
      });
    const first = await newExecutor(tmp.path).run([mk()], plain);
    const out = [...first.values()][0]!;
    const before = (await stat(join(out, 'data.txt'))).mtimeMs;
    const infoBefore = (await stat(join(out, '.executor_info'))).mtimeMs;
    await sleep(20);
    await newExecutor(tmp.path).run([mk()], plain);
    expect(runs).toBe(1);
    expect((await stat(join(out, 'data.txt'))).mtimeMs).toBe(before);
    expect((await stat(join(out, '.executor_info'))).mtimeMs).toBe(infoBefore);
  });

  it('runs the transitive dependencies of a terminal step first, skipping a dependency that already succeeded', async () => {
    await using tmp = await makeTempDir();
    const runs: string[] = [];
    const build = () => {
      const a = new ExecutorStep({ name: 'a', config: {}, fn: () => void runs.push('a') });
      const b = new ExecutorStep({ name: 'b', config: { x: a }, fn: () => void runs.push('b') });
      const c = new ExecutorStep({ name: 'c', config: { x: b }, fn: () => void runs.push('c') });
      return { a, b, c };
    };
    const g1 = build();
    await newExecutor(tmp.path).run([g1.a], plain);
    const g2 = build();
    await newExecutor(tmp.path).run([g2.c], plain);
    expect(runs).toEqual(['a', 'b', 'c']);
  });

  it('runs steps given in reverse order in dependency order, and a shared dependency once', async () => {
    await using tmp = await makeTempDir();
    const runs: string[] = [];
    const shared = new ExecutorStep({ name: 'shared', config: {}, fn: () => void runs.push('shared') });
    const x = new ExecutorStep({ name: 'x', config: { s: shared }, fn: () => void runs.push('x') });
    const y = new ExecutorStep({ name: 'y', config: { s: shared, x }, fn: () => void runs.push('y') });
    await newExecutor(tmp.path).run([y, x, shared], { ...plain, maxConcurrent: 1 });
    expect(runs).toEqual(['shared', 'x', 'y']);
  });

  it('completes with maxConcurrent 1 and rejects maxConcurrent 0 before writing anything', async () => {
    await using tmp = await makeTempDir();
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    await expect(newExecutor(tmp.path).run([a], { maxConcurrent: 0 })).rejects.toMatchObject({
      code: 'EXECUTOR_INVALID_ARGUMENT',
      details: { maxConcurrent: 0 },
    });
    expect(await listTree(tmp.path)).toEqual([]);
    const paths = await newExecutor(tmp.path).run([a], { ...plain, maxConcurrent: 1 });
    expect(await statusOf(paths.get(a)!)).toBe('SUCCESS');
  });

  it('keeps at most 8 steps active by default', async () => {
    await using tmp = await makeTempDir();
    let active = 0;
    let peak = 0;
    let release!: () => void;
    const full = new Promise<void>((r) => (release = r));
    const steps = Array.from(
      { length: 12 },
      (_, i) =>
        new ExecutorStep({
          name: `p${i}`,
          config: {},
          fn: async () => {
            active++;
            peak = Math.max(peak, active);
            if (active === 8) release();
            // Wait until eight bodies overlap (or give up after a while on a slow machine).
            await Promise.race([full, sleep(10_000)]);
            await sleep(20);
            active--;
          },
        }),
    );
    await newExecutor(tmp.path).run(steps, plain);
    expect(peak).toBe(8);
  });

  it('finishes six independent sleeping steps in under 75% of the serial time', async () => {
    await using tmp = await makeTempDir();
    const sleepMs = 1000;
    const steps = Array.from({ length: 6 }, (_, i) => new ExecutorStep({ name: `s${i}`, config: {}, fn: () => sleep(sleepMs) }));
    const t0 = performance.now();
    await newExecutor(tmp.path).run(steps, plain);
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeLessThan(0.75 * 6 * sleepMs);
  });

  it('fails a chain at b with a cause chain run → step → original, and does not run dependents', async () => {
    await using tmp = await makeTempDir();
    const original = new Error('b exploded');
    let cRan = false;
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const b = new ExecutorStep({ name: 'b', config: { a }, fn: () => Promise.reject(original) });
    const c = new ExecutorStep({ name: 'c', config: { b }, fn: () => void (cRan = true) });
    const ex = newExecutor(tmp.path);
    const err = await ex.run([c], plain).then(
      () => null,
      (e: unknown) => e,
    );
    expect(ExecutorError.hasCode(err, 'EXECUTOR_STEP_FAILED')).toBe(true);
    const runErr = err as ExecutorError;
    expect(runErr.details['failures']).toHaveLength(1);
    expect(runErr.details['completed']).toEqual([ex.label(a)]);
    const stepErr = runErr.cause as ExecutorError;
    expect(stepErr).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', details: { step: ex.label(b) } });
    expect(stepErr.cause).toBe(original);
    expect(cRan).toBe(false);
    expect(await statusOf(ex.outputPaths.get(b)!)).toBe('FAILED');
    expect(await statusOf(ex.outputPaths.get(c)!)).toBeNull();
  });

  it('lets an independent branch complete when another branch fails', async () => {
    await using tmp = await makeTempDir();
    const bad = new ExecutorStep({ name: 'bad', config: {}, fn: () => Promise.reject(new Error('no')) });
    const good = new ExecutorStep({ name: 'good', config: {}, fn: () => sleep(200) });
    const goodChild = new ExecutorStep({ name: 'good-child', config: { good }, fn: () => {} });
    const ex = newExecutor(tmp.path);
    await expect(ex.run([bad, goodChild], plain)).rejects.toMatchObject({ code: 'EXECUTOR_STEP_FAILED' });
    expect(await statusOf(ex.outputPaths.get(goodChild)!)).toBe('SUCCESS');
  });

  it('after a failure, refuses to rerun with forceRunFailed false and reruns both steps with true', async () => {
    await using tmp = await makeTempDir();
    let fail = true;
    const runs: string[] = [];
    const build = () => {
      const a = new ExecutorStep({
        name: 'a',
        config: {},
        fn: () => {
          runs.push('a');
          if (fail) throw new Error('a failed');
        },
      });
      const b = new ExecutorStep({ name: 'b', config: { a }, fn: () => void runs.push('b') });
      return b;
    };
    await expect(newExecutor(tmp.path).run([build()], plain)).rejects.toMatchObject({ code: 'EXECUTOR_STEP_FAILED' });
    expect(runs).toEqual(['a']);
    fail = false;
    await expect(newExecutor(tmp.path).run([build()], { ...plain, forceRunFailed: false })).rejects.toMatchObject({
      code: 'EXECUTOR_PREVIOUSLY_FAILED',
      details: { status: 'FAILED' },
    });
    expect(runs).toEqual(['a']);
    await newExecutor(tmp.path).run([build()], { ...plain, forceRunFailed: true });
    expect(runs).toEqual(['a', 'a', 'b']);
  });

  it('selects steps with runOnly regexes and rejects unmatched ones with close step names', async () => {
    await using tmp = await makeTempDir();
    const runs: string[] = [];
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => void runs.push('a') });
    const b = new ExecutorStep({ name: 'b', config: { a }, fn: () => void runs.push('b') });
    const c = new ExecutorStep({ name: 'c', config: { b }, fn: () => void runs.push('c') });
    await newExecutor(tmp.path).run([b, c], { ...plain, runOnly: ['^b$'] });
    expect(runs).toEqual(['a', 'b']);

    await using tmp2 = await makeTempDir();
    runs.length = 0;
    await new Executor({ prefix: tmp2.path, logger: captureLogger() }).run([a, b, c], { ...plain, runOnly: ['a', 'c'] });
    expect(runs.sort()).toEqual(['a', 'b', 'c']);

    await using tmp3 = await makeTempDir();
    runs.length = 0;
    const typo = new Executor({ prefix: tmp3.path, logger: captureLogger() }).run([a, b, c], { ...plain, runOnly: ['a', '^cc$'] });
    await expect(typo).rejects.toMatchObject({
      code: 'EXECUTOR_INVALID_ARGUMENT',
      details: { unmatched: ['^cc$'], suggestions: { '^cc$': ['c'] } },
    });
    expect(runs).toEqual([]);
    expect(await listTree(tmp3.path)).toEqual([]);
  });

  it('runs only a and c for runOnly ["a", "c"] on independent [a, b, c]', async () => {
    await using tmp = await makeTempDir();
    const runs: string[] = [];
    const steps = ['a', 'b', 'c'].map((n) => new ExecutorStep({ name: n, config: {}, fn: () => void runs.push(n) }));
    await newExecutor(tmp.path).run(steps, { ...plain, runOnly: ['a', 'c'] });
    expect(runs.sort()).toEqual(['a', 'c']);
  });

  it('never executes a pseudo-only parent, but runOnly or a blocking child makes it run', async () => {
    await using tmp = await makeTempDir();
    let parentRuns = 0;
    const parent = new ExecutorStep({
      name: 'parent',
      config: {},
      fn: () => {
        parentRuns++;
      },
    });
    const child = new ExecutorStep({ name: 'child', config: { ckpt: parent.cd('ckpt.pt').nonblocking() }, fn: () => {} });
    const ex = newExecutor(tmp.path);
    await ex.run([child], plain);
    expect(parentRuns).toBe(0);
    expect(await statusOf(ex.outputPaths.get(parent)!)).toBeNull();
    expect((await infoOf(ex.outputPaths.get(parent)!))['name']).toBe('parent');

    await newExecutor(tmp.path).run([child], { ...plain, runOnly: ['parent'] });
    expect(parentRuns).toBe(1);

    await using tmp2 = await makeTempDir();
    const blocking = new ExecutorStep({ name: 'blocking', config: { p: parent }, fn: () => {} });
    await newExecutor(tmp2.path).run([child, blocking], plain);
    expect(parentRuns).toBe(2);
  });

  it('makes an AsyncLocalStorage value set by the caller visible inside the step', async () => {
    await using tmp = await makeTempDir();
    const als = new AsyncLocalStorage<string>();
    let seen: string | undefined;
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => void (seen = als.getStore()) });
    await als.run('from-caller', () => newExecutor(tmp.path).run([a], plain));
    expect(seen).toBe('from-caller');
  });

  it('runs a step with mirrored inputs inside mirrorBudget of the largest budgetGb', async () => {
    await using tmp = await makeTempDir();
    let limit: number | undefined;
    const a = new ExecutorStep({
      name: 'a',
      config: { x: mirrored(versioned('docs/x'), { budgetGb: 50 }), y: [mirrored('docs/y', { budgetGb: 3 })] },
      fn: (config) => {
        limit = currentMirrorBudget()?.limitBytes;
        expect(config).toEqual({ x: 'mirror://docs/x', y: ['mirror://docs/y'] });
      },
    });
    await newExecutor(tmp.path).run([a], plain);
    expect(limit).toBe(50 * 1024 ** 3);
  });

  it('is single-use: a second run() throws EXECUTOR_INVALID_ARGUMENT', async () => {
    await using tmp = await makeTempDir();
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const ex = newExecutor(tmp.path);
    await ex.run([a], plain);
    await expect(ex.run([a], plain)).rejects.toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT' });
  });

  it('rejects a step with resources under an inline-only runner before writing anything', async () => {
    await using tmp = await makeTempDir();
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {}, resources: { cpu: 1 } });
    const inlineOnly = new Executor({ prefix: tmp.path, logger: captureLogger(), runner: new InlineStepRunner() });
    await expect(inlineOnly.run([a], plain)).rejects.toMatchObject({
      code: 'EXECUTOR_INVALID_ARGUMENT',
      details: { step: expect.stringMatching(/^a-[0-9a-f]{6}$/) },
    });
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('reuses an already-successful remote step without a Fray backend', async () => {
    await using tmp = await makeTempDir();
    let runs = 0;
    const inline = new ExecutorStep({ name: 'a', config: {}, fn: () => void runs++ });
    const first = await newExecutor(tmp.path).run([inline], plain);
    const remoteLike = new ExecutorStep({ name: 'a', config: {}, fn: () => void runs++, resources: { cpu: 1 } });
    const again = await newExecutor(tmp.path).run([remoteLike], plain);
    expect(again.get(remoteLike)).toBe(first.get(inline));
    expect(runs).toBe(1);
  });

  it('fails a step without a function, writing no status for it', async () => {
    await using tmp = await makeTempDir();
    const a = new ExecutorStep({ name: 'a', config: {}, fn: null });
    const ex = newExecutor(tmp.path);
    const err = await ex.run([a], plain).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', cause: { code: 'EXECUTOR_STEP_FAILED', cause: { code: 'EXECUTOR_INVALID_ARGUMENT' } } });
    expect(await statusOf(ex.outputPaths.get(a)!)).toBeNull();
  });

  it('rejects an empty prefix with EXECUTOR_INVALID_ARGUMENT', () => {
    expect(() => new Executor({ prefix: '  ' })).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ field: 'prefix' }) }));
  });

  it('runs step bodies through an injected StepRunner inside the lease', async () => {
    await using tmp = await makeTempDir();
    const seen: { label: string; config: unknown; status: string | null }[] = [];
    const runner: StepRunner = {
      check: () => {},
      run: async (inv) => {
        seen.push({ label: inv.label, config: inv.config, status: await statusOf(inv.outputPath) });
      },
    };
    const a = new ExecutorStep({ name: 'a', config: { n: versioned(1) }, fn: () => {}, resources: { cpu: 1 } });
    const ex = new Executor({ prefix: tmp.path, logger: captureLogger(), runner });
    await ex.run([a], plain);
    expect(seen).toEqual([{ label: ex.label(a), config: { n: 1 }, status: 'RUNNING' }]);
    expect(await statusOf(ex.outputPaths.get(a)!)).toBe('SUCCESS');
  });

  it('writes progress lines and the summary to the given progressStream', async () => {
    await using tmp = await makeTempDir();
    let text = '';
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const ex = new Executor({ prefix: tmp.path, logger: captureLogger(), progressStream: { write: (s: string) => void (text += s) } });
    await ex.run([a], plain);
    expect(text.replace(/\d+\.\d\ds/, 'T').split('\n')).toEqual([
      `▶ ${ex.label(a)} started: no earlier output`,
      `✓ ${ex.label(a)} done in T`,
      '1 steps: 1 ran, 0 skipped (already succeeded), 0 failed, 0 not run (dependency failed)',
      '',
    ]);
  });

  it('makes a relative prefix absolute', () => {
    const ex = new Executor({ prefix: 'local_store' });
    expect(ex.prefix).toBe(join(process.cwd(), 'local_store'));
  });
});
