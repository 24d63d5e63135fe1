import { float } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { MirroredValue, mirrored } from '../dag/mirrored-value.js';
import { thisOutputPath } from '../dag/output-name.js';
import { versioned } from '../dag/versioned-value.js';
import { maxMirrorBudgetGb } from './max-mirror-budget.js';
import { resolveLocalPlaceholders } from './resolve-local-placeholders.js';

const step = new ExecutorStep({ name: 'a', fn: null, config: {} });

describe('resolveLocalPlaceholders()', () => {
  it('resolves OutputName, unwraps VersionedValue and FloatValue, keeps references', () => {
    const input = step.cd('x');
    const cfg = {
      out: thisOutputPath(),
      sub: thisOutputPath('ckpt'),
      v: versioned({ n: float(1), list: [versioned(2)] }),
      f: float(2.5),
      input,
      step,
      nested: [new Map([['o', thisOutputPath('m')]])],
    };
    const out = resolveLocalPlaceholders(cfg, '/p/me') as Record<string, unknown>;
    expect(out).toEqual({
      out: '/p/me',
      sub: '/p/me/ckpt',
      v: { n: 1, list: [2] },
      f: 2.5,
      input,
      step,
      nested: [new Map([['o', '/p/me/m']])],
    });
    expect(out['input']).toBe(input);
    expect(out['step']).toBe(step);
  });

  it('keeps the MirroredValue wrapper around its resolved inner value', () => {
    const out = resolveLocalPlaceholders(
      { m: mirrored(versioned('docs/x'), { budgetGb: 5 }), i: mirrored(InputName.hardcoded('raw')) },
      '/p/me',
    ) as Record<string, MirroredValue>;
    expect(out['m']).toBeInstanceOf(MirroredValue);
    expect(out['m']).toMatchObject({ value: 'docs/x', budgetGb: 5 });
    expect(out['i']?.value).toBeInstanceOf(InputName);
  });

  it('resolves placeholders inside a versioned value like Marin: OutputName resolved, InputName kept', () => {
    const input = step.cd('x');
    const out = resolveLocalPlaceholders({ v: versioned({ o: thisOutputPath('f'), i: input }) }, '/p/me') as Record<string, Record<string, unknown>>;
    expect(out['v']?.['o']).toBe('/p/me/f');
    expect(out['v']?.['i']).toBe(input);
  });

  it('throws EXECUTOR_MATERIALIZE_FAILED for an OutputName without an output path', () => {
    expect(() => resolveLocalPlaceholders({ o: thisOutputPath() }, null)).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_MATERIALIZE_FAILED' }),
    );
  });
});

describe('maxMirrorBudgetGb()', () => {
  it('finds the largest budget through records, Map values, arrays and VersionedValues', () => {
    const cfg = {
      a: mirrored('x', { budgetGb: 5 }),
      b: [new Map([['k', mirrored('y', { budgetGb: 50 })]])],
      c: versioned({ inner: new MirroredValue('z', 70) }),
    };
    expect(maxMirrorBudgetGb(cfg)).toBe(70);
    expect(maxMirrorBudgetGb({ a: mirrored('x') })).toBe(10);
  });

  it('returns null without MirroredValues and does not look inside steps', () => {
    const hidden = new ExecutorStep({ name: 'h', fn: null, config: { m: mirrored('x', { budgetGb: 99 }) } });
    expect(maxMirrorBudgetGb({ s: hidden, plain: 'x' })).toBeNull();
    expect(maxMirrorBudgetGb(null)).toBeNull();
  });
});
