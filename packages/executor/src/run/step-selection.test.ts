import { describe, expect, it } from 'vitest';
import { planSelection, selectStepsToRun } from './step-selection.js';

interface S {
  name: string;
  deps: S[];
  pseudo?: boolean;
  status?: string;
}

function collect(): { info: string[]; warn: string[]; logger: { info(m: string): void; warn(m: string): void } } {
  const info: string[] = [];
  const warn: string[] = [];
  return { info, warn, logger: { info: (m) => void info.push(m), warn: (m) => void warn.push(m) } };
}

function select(steps: S[], runOnly: string[] | null, log = collect()): string[] {
  return selectStepsToRun<S>({
    steps,
    name: (s) => s.name,
    dependencies: (s) => s.deps,
    isPseudoDep: (s) => s.pseudo === true,
    status: (s) => s.status ?? null,
    runOnly: runOnly === null ? null : runOnly.map((p) => new RegExp(p)),
    logger: log.logger,
  }).map((s) => s.name);
}

describe('selectStepsToRun()', () => {
  const a: S = { name: 'a', deps: [] };
  const b: S = { name: 'b', deps: [a] };
  const c: S = { name: 'c', deps: [] };

  it('selects every non-pseudo step without runOnly', () => {
    const p: S = { name: 'p', deps: [], pseudo: true };
    expect(select([a, b, p, c], null)).toEqual(['a', 'b', 'c']);
  });

  it('selects ^b$ and its dependency, unanchored patterns otherwise', () => {
    expect(select([a, b, c], ['^b$'])).toEqual(['a', 'b']);
    expect(select([a, b, c], ['a', 'c'])).toEqual(['a', 'c']);
  });

  it('does not descend below a SUCCESS step', () => {
    const a2: S = { name: 'a2', deps: [] };
    const b2: S = { name: 'b2', deps: [a2], status: 'SUCCESS' };
    const c2: S = { name: 'c2', deps: [b2] };
    const log = collect();
    expect(select([a2, b2, c2], ['c2'], log)).toEqual(['c2']);
    expect(log.info.some((m) => m.includes("b2's dependencies"))).toBe(true);
  });

  it('selects a matching pseudo-only step', () => {
    const p: S = { name: 'parent', deps: [], pseudo: true };
    expect(select([p, c], ['parent'])).toEqual(['parent']);
  });

  it('rejects patterns that matched nothing, suggesting close step names', () => {
    const tokenize: S = { name: 'data/tokenize', deps: [] };
    expect(() => select([a, b, tokenize], ['^zzz', 'a', '^tokenzie$'])).toThrow(
      expect.objectContaining({
        code: 'EXECUTOR_INVALID_ARGUMENT',
        details: expect.objectContaining({ unmatched: ['^zzz', '^tokenzie$'], suggestions: { '^zzz': [], '^tokenzie$': ['data/tokenize'] } }),
      }),
    );
  });

  it('prunes the dependencies of a built step without runOnly, keeping those an unbuilt step needs', () => {
    const d: S = { name: 'd', deps: [] };
    const x: S = { name: 'x', deps: [d] };
    const y: S = { name: 'y', deps: [d], status: 'SUCCESS' };
    const e: S = { name: 'e', deps: [] };
    const z: S = { name: 'z', deps: [e], status: 'SUCCESS' };
    const top: S = { name: 'top', deps: [x, y] };
    const plan = planSelection<S>({
      steps: [d, x, y, top, e, z],
      name: (s) => s.name,
      dependencies: (s) => s.deps,
      isPseudoDep: () => false,
      status: (s) => s.status ?? null,
      runOnly: null,
      logger: collect().logger,
    });
    expect(plan.selected.map((s) => s.name)).toEqual(['d', 'x', 'y', 'top', 'z']);
    expect([...plan.pruned].map(([s, by]) => [s.name, by.name])).toEqual([['e', 'z']]);
  });

  it('throws EXECUTOR_CYCLE naming the re-entered step', () => {
    const x: S = { name: 'x', deps: [] };
    const y: S = { name: 'y', deps: [x] };
    x.deps.push(y);
    expect(() => select([x, y], ['x'])).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_CYCLE', details: { step: 'x' } }),
    );
  });
});
