import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Executor, ExecutorStep, float, versioned } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { listTree, statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const plain = { progress: 'plain' as const };

/** Writes a SUCCESS output at `dir` whose `.executor_info` carries `versionJson` (Python indent layout). */
async function fakeSuccess(dir: string, name: string, versionJson: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, '.executor_status'), 'SUCCESS');
  await writeFile(
    join(dir, '.executor_info'),
    `{\n  "name": "${name}",\n  "fn_name": "f",\n  "config": {},\n  "override_output_path": null,\n  "version": ${versionJson},\n  "dependencies": [],\n  "output_path": "${dir}"\n}\n`,
  );
}

async function snapshot(root: string): Promise<string[]> {
  const entries = await listTree(root);
  return Promise.all(entries.map(async (e) => `${e}@${(await stat(join(root, e))).mtimeMs}`));
}

function outputPathOf(prefix: string, step: ExecutorStep): string {
  const probe = new Executor({ prefix, logger: captureLogger() });
  probe.computeVersion(step);
  return probe.outputPaths.get(step)!;
}

describe('verify-on-hit', () => {
  it('fails with EXECUTOR_VERSION_CONFLICT before anything runs and leaves the stored info untouched', async () => {
    await using tmp = await makeTempDir();
    let runs = 0;
    const victim = new ExecutorStep({ name: 'collide', config: { n: versioned(1) }, fn: () => void runs++ });
    const bystander = new ExecutorStep({ name: 'bystander', config: {}, fn: () => void runs++ });
    const out = outputPathOf(tmp.path, victim);
    await fakeSuccess(out, 'collide', '{"name": "collide", "config": {"n": 2}, "dependencies": []}');
    const before = await snapshot(tmp.path);
    const infoBefore = await readFile(join(out, '.executor_info'), 'utf8');
    const err = await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([bystander, victim], plain).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EXECUTOR_VERSION_CONFLICT', details: { outputPath: out, step: 'collide', storedStep: 'collide' } });
    expect(runs).toBe(0);
    expect(await readFile(join(out, '.executor_info'), 'utf8')).toBe(infoBefore);
    expect(await snapshot(tmp.path)).toEqual(before);
  });

  it('only warns for the same mismatch under an override path', async () => {
    await using tmp = await makeTempDir();
    let runs = 0;
    const pinned = new ExecutorStep({ name: 'pinned', config: { n: versioned(1) }, fn: () => void runs++, overrideOutputPath: 'pins/pinned' });
    const out = join(tmp.path, 'pins', 'pinned');
    await fakeSuccess(out, 'pinned', '{"name": "pinned", "config": {"n": 2}, "dependencies": []}');
    const infoBefore = await readFile(join(out, '.executor_info'), 'utf8');
    const logger = captureLogger();
    await new Executor({ prefix: tmp.path, logger }).run([pinned], plain);
    expect(runs).toBe(0);
    expect(logger.warns.some((w) => w.includes(out))).toBe(true);
    expect(await readFile(join(out, '.executor_info'), 'utf8')).toBe(infoBefore);
  });

  it('does not count a 1.0 written by Python as a mismatch against float(1)', async () => {
    await using tmp = await makeTempDir();
    let runs = 0;
    const step = new ExecutorStep({ name: 'lr', config: { lr: versioned(float(1)) }, fn: () => void runs++ });
    const out = outputPathOf(tmp.path, step);
    await fakeSuccess(out, 'lr', '{\n    "name": "lr",\n    "config": {\n      "lr": 1.0\n    },\n    "dependencies": []\n  }');
    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([step], plain);
    expect(runs).toBe(0);
  });
});

describe('dry runs and explain()', () => {
  it('writes nothing and reports skip, run, wait and take over with reasons', async () => {
    await using tmp = await makeTempDir();
    const mk = (name: string) => new ExecutorStep({ name, config: {}, fn: () => {} });
    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([mk('done')], plain);
    const steps = { done: mk('done'), fresh: mk('fresh'), held: mk('held'), stale: mk('stale') };
    const probe = new Executor({ prefix: tmp.path, logger: captureLogger() });
    for (const s of Object.values(steps)) probe.computeVersion(s);
    const now = Date.now() / 1000;
    for (const [key, age] of [['held', 1], ['stale', 1000]] as const) {
      const dir = probe.outputPaths.get(steps[key])!;
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, '.executor_status'), 'RUNNING');
      await writeFile(join(dir, '.executor_status.lock'), `{"worker_id": "host-123-4", "timestamp": ${(now - age).toFixed(3)}}`);
    }
    const before = await snapshot(tmp.path);
    const logger = captureLogger();
    const ex = new Executor({ prefix: tmp.path, logger });
    const plans = await ex.explain(Object.values(steps));
    expect(plans.map((p) => [p.step.name, p.action])).toEqual([
      ['done', 'skip'],
      ['fresh', 'run'],
      ['held', 'wait'],
      ['stale', 'take over'],
    ]);
    expect(plans.every((p) => p.reason.length > 0)).toBe(true);
    expect(plans.find((p) => p.action === 'wait')!.reason).toContain('host-123-4');
    const paths = await new Executor({ prefix: tmp.path, logger }).run(Object.values(steps), { dryRun: true });
    expect(paths.size).toBe(4);
    expect(logger.infos.some((l) => l.includes('take over'))).toBe(true);
    expect(await snapshot(tmp.path)).toEqual(before);
  });

  it('writes no file or directory at all on a fresh prefix', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'never-created');
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const b = new ExecutorStep({ name: 'b', config: { a }, fn: () => {} });
    const plans = await new Executor({ prefix, logger: captureLogger() }).explain([b]);
    expect(plans.map((p) => p.action)).toEqual(['run', 'run']);
    expect(plans[1]!.reason).toContain(plans[0]!.label);
    await new Executor({ prefix, logger: captureLogger() }).run([b], { dryRun: true });
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('diffs a step that will run against the nearest earlier version of the same name', async () => {
    await using tmp = await makeTempDir();
    const mk = (n: number, extra: Record<string, unknown> = {}) =>
      new ExecutorStep({ name: 'exp/train', config: { n: versioned(n), ...extra }, fn: () => {} });
    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([mk(3)], plain);
    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([mk(9, { tokenizer: versioned('llama2') })], plain);
    const [plan] = await new Executor({ prefix: tmp.path, logger: captureLogger() }).explain([mk(4)]);
    expect(plan!.action).toBe('run');
    expect(plan!.diff).toEqual(['~ config.n: 3 → 4']);
    expect(plan!.baseline).toMatch(/exp\/train-[0-9a-f]{6}$/);

    const [other] = await new Executor({ prefix: tmp.path, logger: captureLogger() }).explain([
      new ExecutorStep({ name: 'exp/eval', config: {}, fn: () => {} }),
    ]);
    expect(other!.diff).toBeNull();
    expect(other!.baseline).toBeNull();
  });

  it('throws EXECUTOR_PREVIOUSLY_FAILED for a FAILED step when forceRunFailed is off', async () => {
    await using tmp = await makeTempDir();
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const dir = outputPathOf(tmp.path, a);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '.executor_status'), 'FAILED');
    await expect(new Executor({ prefix: tmp.path, logger: captureLogger() }).explain([a], { forceRunFailed: false })).rejects.toMatchObject({
      code: 'EXECUTOR_PREVIOUSLY_FAILED',
    });
    const [plan] = await new Executor({ prefix: tmp.path, logger: captureLogger() }).explain([a]);
    expect(plan!.action).toBe('run');
  });
});

describe('lease timings from the environment', () => {
  const keys = ['MARIN_LEASE_HEARTBEAT_S', 'MARIN_LEASE_TIMEOUT_S', 'MARIN_LEASE_POLL_S'] as const;
  const saved = keys.map((k) => process.env[k]);
  afterEach(() => {
    keys.forEach((k, i) => {
      if (saved[i] === undefined) delete process.env[k];
      else process.env[k] = saved[i];
    });
  });

  it.each([
    { MARIN_LEASE_TIMEOUT_S: '0' },
    { MARIN_LEASE_POLL_S: 'soon' },
    { MARIN_LEASE_HEARTBEAT_S: '10', MARIN_LEASE_TIMEOUT_S: '5' },
  ])('fails at startup on %j and writes nothing', async (env) => {
    Object.assign(process.env, env);
    await using tmp = await makeTempDir();
    let runs = 0;
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => void runs++ });
    await expect(new Executor({ prefix: tmp.path, logger: captureLogger() }).run([a], plain)).rejects.toMatchObject({
      code: 'EXECUTOR_INVALID_ARGUMENT',
    });
    expect(runs).toBe(0);
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('accepts fractional values', async () => {
    Object.assign(process.env, { MARIN_LEASE_HEARTBEAT_S: '0.25', MARIN_LEASE_TIMEOUT_S: '1.5', MARIN_LEASE_POLL_S: '0.1' });
    await using tmp = await makeTempDir();
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const paths = await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([a], plain);
    expect(await statusOf(paths.get(a)!)).toBe('SUCCESS');
  });
});
