import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { float } from '@marin/rigging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { captureLogger } from '../../test/helpers/capture-logger.js';
import { makeTempDir } from '../../test/helpers/temp-dir.js';
import type { TempDir } from '../../test/helpers/temp-dir.js';
import { ExecutorError } from '../errors.js';
import { planGc } from '../gc/gc-plan.js';
import { readStatus } from '../status/status-store.js';
import { apply, OUT } from './apply.js';
import { buildArtifacts, resolveArtifact, runArtifacts } from './artifact-runner.js';
import { ArtifactStep } from './artifact-step.js';
import { defineArtifactType } from './artifact-type.js';
import { readRecord, RECORD_FILE } from './record.js';

const Total = defineArtifactType('interop_artifacts.Total', z.object({ total: z.number(), count: z.number() }));

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir('artifacts');
});
afterEach(async () => {
  await tmp.close();
});

function graph(version = '2026.11.25', scale: unknown = float(1.5)) {
  const calls = { numbers: 0, total: 0 };
  const numbers = new ArtifactStep({
    name: 'demo/numbers',
    version,
    buildConfig: (ctx) => ({ n: 5, scale, out: ctx.outputPath }),
    run: async (c: { n: number; out: string }) => {
      calls.numbers++;
      await mkdir(c.out, { recursive: true });
      await writeFile(join(c.out, 'numbers.json'), JSON.stringify([...Array(c.n).keys()]));
    },
  });
  const total = new ArtifactStep({
    name: 'demo/total',
    version,
    artifactType: Total,
    deps: [numbers],
    buildConfig: (ctx) => ({ input: ctx.artifactPath(numbers), label: 'sum' }),
    run: async (c: { input: string }) => {
      calls.total++;
      const xs = JSON.parse(await readFile(join(c.input, 'numbers.json'), 'utf8')) as number[];
      return { total: xs.reduce((a, b) => a + b, 0), count: xs.length };
    },
  });
  return { numbers, total, calls };
}

const quiet = () => ({ logger: captureLogger() });

describe('runArtifacts()', () => {
  it('builds at {prefix}/{name}/{version} with records and statuses, loads the typed value, and a rerun skips', async () => {
    const { total, calls } = graph();
    const [loaded] = await runArtifacts([total], { prefix: tmp.path, ...quiet() });
    expect(loaded).toMatchObject({ total: 10, count: 5, path: join(tmp.path, 'demo/total/2026.11.25') });
    expect(calls).toEqual({ numbers: 1, total: 1 });
    const rec = await readRecord(join(tmp.path, 'demo/total/2026.11.25'));
    expect(rec).toMatchObject({
      name: 'demo/total',
      version: '2026.11.25',
      result_type: 'interop_artifacts.Total',
      deps: ['demo/numbers@2026.11.25'],
      config: { input: join(tmp.path, 'demo/numbers/2026.11.25'), label: 'sum' },
      result: { total: 10, count: 5 },
      fingerprint_payload: '{"input": "demo/numbers@2026.11.25", "label": "sum"}',
    });
    expect(await readStatus(join(tmp.path, 'demo/numbers/2026.11.25'))).toBe('SUCCESS');

    const again = graph();
    const report = await buildArtifacts([again.total], { prefix: tmp.path, ...quiet() });
    expect(again.calls).toEqual({ numbers: 0, total: 0 });
    expect(Object.fromEntries(report.outcomes)).toEqual({ 'demo/total@2026.11.25': 'pruned' });
  });

  it('writes an experiment file so marin gc counts the artifacts as referenced', async () => {
    await runArtifacts([graph().total], { prefix: tmp.path, ...quiet() });
    const plan = await planGc({ prefix: tmp.path });
    expect(plan.outputs).toBe(2);
    expect(plan.candidates).toEqual([]);
  });

  it('rebuilds a mutable dev version every run', async () => {
    const first = graph('dev');
    await runArtifacts([first.total], { prefix: tmp.path, ...quiet() });
    const second = graph('dev');
    await runArtifacts([second.total], { prefix: tmp.path, ...quiet() });
    expect(second.calls).toEqual({ numbers: 1, total: 1 });
  });

  it('warns on drift naming the changed field and serves the cached output', async () => {
    await runArtifacts([graph().numbers], { prefix: tmp.path, ...quiet() });
    const changed = graph('2026.11.25', float(2.5));
    const logger = captureLogger();
    await runArtifacts([changed.numbers], { prefix: tmp.path, logger });
    expect(changed.calls.numbers).toBe(0);
    expect(logger.warns.join('\n')).toContain('~ scale: 1.5 → 2.5');
  });

  it('refuses drift with expectedFingerprint', async () => {
    const { numbers } = graph();
    await runArtifacts([numbers], { prefix: tmp.path, ...quiet() });
    const changed = graph('2026.11.25', float(2.5)).numbers;
    const pinned = new ArtifactStep({ ...changed, name: changed.name, version: changed.version, run: changed.run, buildConfig: changed.buildConfig, expectedFingerprint: await changed.fingerprint() });
    await expect(runArtifacts([pinned], { prefix: tmp.path, ...quiet() })).rejects.toMatchObject({ code: 'EXECUTOR_FINGERPRINT_MISMATCH', details: { changes: [{ path: 'scale' }] } });
  });

  it('apply() resolves handles to paths and OUT to the output path; the fingerprint sees name@version and <output_path>', async () => {
    const { numbers } = graph();
    const seen: Record<string, unknown>[] = [];
    const step = apply('demo/applied', (inputs) => void seen.push(inputs), { version: '2026.11.25', data: numbers, out: OUT, k: [numbers, 3] });
    expect(await step.fingerprintPayload()).toBe('{"data": "demo/numbers@2026.11.25", "k": ["demo/numbers@2026.11.25", 3], "out": "<output_path>"}');
    await runArtifacts([step], { prefix: tmp.path, ...quiet() });
    expect(seen).toEqual([{ data: join(tmp.path, 'demo/numbers/2026.11.25'), out: join(tmp.path, 'demo/applied/2026.11.25'), k: [join(tmp.path, 'demo/numbers/2026.11.25'), 3] }]);
  });

  it('adopts existing data: consumers see the source, the record lands at name/version with the source', async () => {
    const source = join(tmp.path, 'external/data');
    await mkdir(source, { recursive: true });
    const adopted = ArtifactStep.adopt('raw/data', '2026.11.25', source, { config: { tokenizer: 'gpt2' } });
    const [loaded] = await runArtifacts([adopted], { prefix: tmp.path, ...quiet() });
    expect(loaded?.path).toBe(source);
    expect(await readRecord(join(tmp.path, 'raw/data/2026.11.25'))).toMatchObject({ source, config: { tokenizer: 'gpt2' } });
  });
});

describe('bad input: one coded error, nothing written', () => {
  const written = async (): Promise<string[]> => readdir(tmp.path);

  it('a fixed version on a dev dep', async () => {
    const dep = graph('dev').numbers;
    const top = new ArtifactStep({ name: 'demo/top', version: '2026.11.25', deps: [dep], buildConfig: (ctx) => ({ d: ctx.artifactPath(dep) }), run: () => undefined });
    await expect(runArtifacts([top], { prefix: tmp.path, ...quiet() })).rejects.toMatchObject({ code: 'EXECUTOR_MUTABLE_DEPENDENCY' });
    expect(await written()).toEqual([]);
  });

  it('a dep read through the context but not declared', async () => {
    const dep = graph().numbers;
    const top = new ArtifactStep({ name: 'demo/top', version: '2026.11.25', buildConfig: (ctx) => ({ d: ctx.artifactPath(dep) }), run: () => undefined });
    await expect(runArtifacts([top], { prefix: tmp.path, ...quiet() })).rejects.toMatchObject({ code: 'EXECUTOR_UNDECLARED_DEPENDENCY' });
    expect(await written()).toEqual([]);
  });

  it('a dep cycle', async () => {
    const deps: ArtifactStep[] = [];
    const a = new ArtifactStep({ name: 'cyc/a', version: '2026.11.25', deps, buildConfig: () => ({}), run: () => undefined });
    const b = new ArtifactStep({ name: 'cyc/b', version: '2026.11.25', deps: [a], buildConfig: () => ({}), run: () => undefined });
    deps.push(b);
    await expect(runArtifacts([b], { prefix: tmp.path, ...quiet() })).rejects.toMatchObject({ code: 'EXECUTOR_CYCLE', details: { cycle: ['cyc/b@2026.11.25', 'cyc/a@2026.11.25', 'cyc/b@2026.11.25'] } });
    expect(await written()).toEqual([]);
  });

  it('an invalid version', () => {
    expect(() => new ArtifactStep({ name: 'x', version: 'v1', buildConfig: () => ({}), run: () => undefined })).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_VERSION' }) as Error);
  });

  it('an uncanonicalizable config', async () => {
    const step = new ArtifactStep({ name: 'x', version: '2026.11.25', buildConfig: () => ({ when: new Date(0) }), run: () => undefined });
    await expect(runArtifacts([step], { prefix: tmp.path, ...quiet() })).rejects.toMatchObject({ code: 'EXECUTOR_UNCANONICAL_CONFIG', details: { path: 'when' } });
    expect(await written()).toEqual([]);
  });

  it('a record whose result_type differs', async () => {
    const { total } = graph();
    await runArtifacts([total], { prefix: tmp.path, ...quiet() });
    const Other = defineArtifactType('other.Type', z.object({ total: z.number() }));
    const retyped = new ArtifactStep({ name: total.name, version: total.version, artifactType: Other, deps: total.deps, buildConfig: total.buildConfig, run: () => ({ total: 1 }) });
    const before = await readFile(join(tmp.path, 'demo/total/2026.11.25', RECORD_FILE), 'utf8');
    const err = await resolveArtifact(retyped, { prefix: tmp.path, ...quiet() }).catch((e: unknown) => e);
    expect(ExecutorError.hasCode(err, 'EXECUTOR_RESULT_TYPE_MISMATCH')).toBe(true);
    expect(await readFile(join(tmp.path, 'demo/total/2026.11.25', RECORD_FILE), 'utf8')).toBe(before);
  });
});
