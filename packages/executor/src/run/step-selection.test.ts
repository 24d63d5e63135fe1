import { describe, expect, it } from 'vitest';
import { selectStepsToRun } from './step-selection.js';

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

  it('warns once about patterns that matched nothing', () => {
    const log = collect();
    expect(select([a, b], ['^zzz', 'a', 'nope'], log)).toEqual(['a']);
    expect(log.warn).toHaveLength(1);
    expect(log.warn[0]).toContain('"^zzz"');
    expect(log.warn[0]).toContain('"nope"');
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
