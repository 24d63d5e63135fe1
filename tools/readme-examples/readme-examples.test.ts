// Every fenced js/ts example in the READMEs typechecks against the built packages, and every one not
// marked `no-run` runs in plain Node 20 and exits 0. A fixture README with deliberately broken examples
// proves the checker rejects each kind of breakage at the right line.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratch,
  exampleName,
  examplesOf,
  readmeFiles,
  removeScratch,
  runExample,
  typecheckExamples,
  type Example,
  type Problem,
} from './readme-examples.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
/** A local cluster or a tokenize run on a busy 2-core machine: generous. */
const RUN_TIMEOUT_MS = 240_000;

let scratch = '';
beforeAll(() => {
  scratch = createScratch();
});
afterAll(() => {
  if (scratch) removeScratch(scratch);
});

function format(problems: Problem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('\n');
}

describe('the README examples', () => {
  const files = readmeFiles(ROOT);
  const examples = examplesOf(ROOT, files);
  let problems: Problem[][] = [];
  beforeAll(() => {
    problems = typecheckExamples(examples, { root: ROOT, scratch });
  }, RUN_TIMEOUT_MS);

  it('finds examples in the root README and in every package README', () => {
    expect(files).toContain('README.md');
    for (const pkg of ['rigging', 'iris', 'fray', 'executor', 'pipeline']) {
      expect(examples.some((ex) => ex.file === `packages/${pkg}/README.md`), pkg).toBe(true);
    }
  });

  it.each(examples.map((ex, i) => [exampleName(ex), i] as const))('%s typechecks', (name, i) => {
    expect(format(problems[i]!), name).toBe('');
  });

  const runnable = examples.map((ex, i) => [exampleName(ex), ex, i] as const).filter(([, ex]) => ex.run || ex.lang === 'js');
  it.each(runnable)(
    '%s runs in plain node and exits 0 (a no-run js example is parsed only)',
    async (name, ex: Example, i) => {
      const r = await runExample(ex, { root: ROOT, scratch, name: `run-${i}`, timeoutMs: RUN_TIMEOUT_MS });
      expect({ code: r.code, timedOut: r.timedOut }, `${name}\n${r.out}`).toEqual({ code: 0, timedOut: false });
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});

describe('a README with broken examples (fixtures/broken/README.md)', () => {
  const file = 'tools/readme-examples/fixtures/broken/README.md';
  const examples = examplesOf(ROOT, [file]);
  const at = (fenceLine: number) => examples.findIndex((ex) => ex.fenceLine === fenceLine);
  let problems: Problem[][] = [];
  beforeAll(() => {
    problems = typecheckExamples(examples, { root: ROOT, scratch });
  }, RUN_TIMEOUT_MS);
  const run = (fenceLine: number) => runExample(examples[at(fenceLine)]!, { root: ROOT, scratch, name: `broken-${fenceLine}`, timeoutMs: RUN_TIMEOUT_MS });

  it('extracts js, javascript, mjs and ts fences with their flags', () => {
    expect(examples.map((ex) => [ex.fenceLine, ex.lang, ex.run, ex.unknownFlags])).toEqual([
      [7, 'ts', true, []],
      [15, 'js', true, []],
      [23, 'js', false, []],
      [29, 'js', true, []],
      [36, 'ts', true, ['norun']],
      [42, 'ts', true, []],
      [49, 'js', true, []],
    ]);
  });

  it('rejects a type error at its README line', () => {
    expect(problems[at(7)]!.map((p) => [p.file, p.line])).toEqual([[file, 10]]);
  });

  it('rejects an import of a name the package does not export, and the run fails too', async () => {
    expect(problems[at(29)]!.map((p) => p.line)).toEqual([30]);
    expect((await run(29)).code).not.toBe(0);
  });

  it('rejects an unknown info-string flag at the fence', () => {
    expect(problems[at(36)]!.map((p) => p.line)).toEqual([36]);
  });

  it('fails a js example that throws', async () => {
    expect(problems[at(15)]).toEqual([]);
    expect((await run(15)).code).not.toBe(0);
  });

  it('fails syntax Node 20 cannot parse even in a no-run example', async () => {
    expect((await run(23)).code).not.toBe(0);
  });

  it('passes the good examples: typechecked, and run (a ts one with `await using`, lowered)', async () => {
    expect([problems[at(42)], problems[at(49)]]).toEqual([[], []]);
    expect((await run(42)).code).toBe(0);
    expect((await run(49)).code).toBe(0);
  });
});
