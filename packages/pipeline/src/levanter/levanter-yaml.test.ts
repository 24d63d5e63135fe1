import { describe, expect, it } from 'vitest';
import { formatYamlNumber, toLevanterYaml } from './levanter-yaml.js';

describe('toLevanterYaml()', () => {
  it('writes JSON after the comment header and leaves out undefined keys', () => {
    const text = toLevanterYaml({ a: 1, b: undefined, c: { d: 'no', e: [true, null] } }, ['written by a test']);
    expect(text.startsWith('# written by a test\n')).toBe(true);
    expect(JSON.parse(text.split('\n').slice(1).join('\n'))).toEqual({ a: 1, c: { d: 'no', e: [true, null] } });
  });

  it('writes floats in exponent form with a dot and a signed two-digit exponent', () => {
    expect(formatYamlNumber(1e-8)).toBe('1.0e-08');
    expect(formatYamlNumber(2.5e-7)).toBe('2.5e-07');
    expect(formatYamlNumber(1e21)).toBe('1.0e+21');
    expect(formatYamlNumber(0.003)).toBe('0.003');
    expect(formatYamlNumber(64)).toBe('64');
  });

  it('rejects non-finite numbers', () => {
    expect(() => toLevanterYaml({ lr: Number.NaN })).toThrow(TypeError);
  });
});
