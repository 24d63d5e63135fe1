import { describe, expect, it } from 'vitest';
import { FilterConfigSchema, filterValue, keepFractionThreshold, passes } from './consolidate-filter.js';

const classify = (o: object) => FilterConfigSchema.parse({ type: 'classify', attribute_path: 'a', name: 'q', ...o });

describe('passes()', () => {
  it("keeps classify values inside [lower, upper], as Marin's _is_valid, and reverse flips it", () => {
    const f = classify({ lower_threshold: 0.5, upper_threshold: 0.9 });
    expect([0.4, 0.5, 0.7, 0.9, 0.95].map((v) => passes(f, v, 'd'))).toEqual([false, true, true, true, false]);
    expect(passes(classify({ lower_threshold: 0.5, reverse: true }), 0.7, 'd')).toBe(false);
  });

  it('drops remove_docs documents whose attribute is true', () => {
    const f = FilterConfigSchema.parse({ type: 'remove_docs', attribute_path: 'a', name: 'duplicate' });
    expect([true, false, null].map((v) => passes(f, v, 'd'))).toEqual([false, true, true]);
  });

  it('refuses a non-numeric classify value', () => {
    expect(() => passes(classify({ lower_threshold: 0 }), 'x', 'd')).toThrow(expect.objectContaining({ code: 'PIPELINE_INPUT_INVALID' }));
  });
});

describe('filterValue()', () => {
  it("reads a label inside an object attribute, like Marin's fasttext labels", () => {
    expect(filterValue(classify({ label: '__label__hq' }), { __label__hq: 0.8 }, 'd')).toBe(0.8);
    expect(() => filterValue(classify({ label: '__label__hq' }), { other: 1 }, 'd')).toThrow(expect.objectContaining({ code: 'PIPELINE_INPUT_INVALID' }));
  });
});

describe('keepFractionThreshold()', () => {
  it('is the value at quantile 1 - keep_fraction', () => {
    const values = Float64Array.from({ length: 101 }, (_, i) => 100 - i);
    expect(keepFractionThreshold(values, 0.1)).toBe(90);
    expect(keepFractionThreshold(new Float64Array(), 0.5)).toBe(Number.NEGATIVE_INFINITY);
  });
});
