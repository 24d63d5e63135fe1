import { describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { thisOutputPath } from '../dag/output-name.js';
import { versioned } from '../dag/versioned-value.js';
import { silentLogger } from '../logger.js';
import { VersionGraph } from './version-graph.js';

const mk = (name: string, config: unknown = {}): ExecutorStep => new ExecutorStep({ name, fn: null, config });

function compute(step: ExecutorStep): VersionGraph {
  const g = new VersionGraph({ prefix: '/p', logger: silentLogger });
  g.computeVersion(step, false);
  return g;
}

describe('VersionGraph bad input', () => {
  const other = mk('other');
  it.each([
    ['a function', { fn: () => 1 }, 'fn'],
    ['a Set', new Set([1]), ''],
    ['an ExecutorStep', { s: other }, 's'],
    ['an InputName', [InputName.hardcoded('x')], '[0]'],
    ['an OutputName', { o: thisOutputPath() }, 'o'],
    ['a Date', { d: new Date(0) }, 'd'],
    ['a symbol', { s: Symbol('s') }, 's'],
  ])('rejects %s inside a versioned value with EXECUTOR_INVALID_ARGUMENT naming the key', (_what, value, inner) => {
    const step = mk('bad', { cfg: { field: versioned(value) } });
    let err: unknown;
    try {
      compute(step);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: 'EXECUTOR_INVALID_ARGUMENT',
      details: { step: 'bad', key: 'cfg.field', path: inner === '' ? 'cfg.field' : `cfg.field${inner.startsWith('[') ? '' : '.'}${inner}` },
    });
  });

  it('rejects a cyclic versioned value', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['me'] = cyclic;
    expect(() => compute(mk('bad', { v: versioned(cyclic) }))).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ key: 'v' }) }),
    );
  });

  it('rejects a cyclic config naming the key path', () => {
    const cfg: Record<string, unknown> = { a: { b: [] } };
    ((cfg['a'] as Record<string, unknown>)['b'] as unknown[]).push(cfg);
    expect(() => compute(mk('bad', cfg))).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ path: 'a.b.[0]' }) }),
    );
  });

  it('rejects a Map with a non-string key', () => {
    expect(() => compute(mk('bad', { m: new Map([[1, 'x']]) }))).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }),
    );
  });

  it('reports a cycle in the step graph as EXECUTOR_CYCLE', () => {
    const cfgA: Record<string, unknown> = {};
    const a = mk('a', cfgA);
    const b = mk('b', { in: a });
    cfgA['in'] = b; // configs are mutable; the step graph can be closed after construction
    expect(() => compute(b)).toThrow(expect.objectContaining({ code: 'EXECUTOR_CYCLE' }));
  });

  it('rejects an empty prefix and an unknown step', () => {
    expect(() => new VersionGraph({ prefix: '' })).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
    const g = compute(mk('x'));
    expect(() => g.label(mk('y'))).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
    expect(() => g.canonicalize(mk('y'))).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
  });

  it('leaves the graph without the failed step', () => {
    const good = mk('good');
    const bad = mk('bad', { in: good, v: versioned(() => 1) });
    const g = new VersionGraph({ prefix: '/p', logger: silentLogger });
    expect(() => g.computeVersion(bad, false)).toThrow();
    expect(g.versions.has(bad)).toBe(false);
    expect(() => versioned(undefined)).not.toThrow();
  });
});
