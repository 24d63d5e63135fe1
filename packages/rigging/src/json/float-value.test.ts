import { describe, expect, it } from 'vitest';
import { FloatValue, float } from './float-value.js';

describe('float()', () => {
  it('returns a frozen FloatValue that behaves like its number', () => {
    const f = float(1);
    expect(FloatValue.is(f)).toBe(true);
    expect(Object.isFrozen(f)).toBe(true);
    expect(f.value).toBe(1);
    expect(+f + 1).toBe(2);
    expect(String(f)).toBe('1.0');
    expect(float(f)).toBe(f);
  });

  it('rejects a non-number with RIGGING_INVALID_ARGUMENT', () => {
    expect(() => float('1' as unknown as number)).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
    expect(FloatValue.is(1)).toBe(false);
    expect(FloatValue.is(null)).toBe(false);
  });
});
