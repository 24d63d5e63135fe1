import { float } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { ExecutorStep } from './executor-step.js';
import { InputName } from './input-name.js';
import { MirroredValue, mirrored } from './mirrored-value.js';
import { thisOutputPath } from './output-name.js';
import { VersionedValue, ensureVersioned, unwrapVersionedValue, versioned } from './versioned-value.js';

const step = new ExecutorStep({ name: 'a', fn: null, config: {} });
const invalid = expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' });

describe('versioned()', () => {
  it('wraps a value in a frozen VersionedValue', () => {
    const v = versioned({ lr: 0.1 });
    expect(v).toBeInstanceOf(VersionedValue);
    expect(v.value).toEqual({ lr: 0.1 });
    expect(Object.isFrozen(v)).toBe(true);
    expect(versioned(null).value).toBeNull();
  });

  it('rejects versioned(versioned(x)), an InputName, a step and a MirroredValue', () => {
    expect(() => versioned(versioned(1))).toThrow(invalid);
    expect(() => versioned(step.cd('x'))).toThrow(invalid);
    expect(() => versioned(step)).toThrow(invalid);
    expect(() => versioned(mirrored('x'))).toThrow(invalid);
  });

  it('ensureVersioned() wraps once', () => {
    const v = versioned(1);
    expect(ensureVersioned(v)).toBe(v);
    expect(ensureVersioned(2).value).toBe(2);
  });
});

describe('mirrored()', () => {
  it('defaults the budget to 10 GB', () => {
    expect(mirrored('x')).toMatchObject({ value: 'x', budgetGb: 10 });
    expect(mirrored(versioned('x'), { budgetGb: 50 }).budgetGb).toBe(50);
    expect(mirrored(step.cd('y')).value).toBeInstanceOf(InputName);
  });

  it('rejects mirrored(mirrored(x)), bad budgets and bad values', () => {
    expect(() => mirrored(mirrored('x') as unknown as string)).toThrow(invalid);
    expect(() => new MirroredValue(new MirroredValue('x', 1), 1)).toThrow(invalid);
    expect(() => mirrored('x', { budgetGb: 0 })).toThrow(invalid);
    expect(() => mirrored('x', { budgetGb: NaN })).toThrow(invalid);
    expect(() => mirrored(5 as unknown as string)).toThrow(invalid);
  });
});

describe('unwrapVersionedValue()', () => {
  it('strips VersionedValue, MirroredValue and FloatValue recursively, rebuilding containers', () => {
    class Cfg {
      constructor(readonly n: unknown) {}
    }
    const input = {
      a: versioned(float(1)),
      b: [mirrored(versioned('p')), new Map([['k', float(2.5)]])],
      c: Object.freeze(new Cfg(versioned(3))),
      d: new Set([versioned(1)]),
      e: 'plain',
    };
    const out = unwrapVersionedValue(input) as Record<string, unknown>;
    expect(out['a']).toBe(1);
    expect(out['b']).toEqual(['p', new Map([['k', 2.5]])]);
    expect(out['c']).toBeInstanceOf(Cfg);
    expect((out['c'] as Cfg).n).toBe(3);
    expect(Object.isFrozen(out['c'])).toBe(true);
    expect(out['d']).toBe(input.d);
    expect(out['e']).toBe('plain');
    expect(unwrapVersionedValue(5)).toBe(5);
  });

  it.each([
    ['OutputName', thisOutputPath()],
    ['InputName', InputName.hardcoded('x')],
    ['ExecutorStep', step],
  ])('throws on a nested %s', (type, value) => {
    expect(() => unwrapVersionedValue({ a: [value] })).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { type } }),
    );
  });

  it('throws on a cyclic value', () => {
    const c: Record<string, unknown> = {};
    c['c'] = c;
    expect(() => unwrapVersionedValue(c)).toThrow(invalid);
  });
});
