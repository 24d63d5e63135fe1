import { describe, expect, it } from 'vitest';
import { MAX_HOMOGENEOUS_RUN_CHARS, advanceCodePoints, safeSplitForTokenizer } from './safe-split.js';

const N = MAX_HOMOGENEOUS_RUN_CHARS;

describe('safeSplitForTokenizer()', () => {
  it('returns short and normal texts whole', () => {
    expect(safeSplitForTokenizer('')).toEqual(['']);
    expect(safeSplitForTokenizer('hello world')).toEqual(['hello world']);
    const prose = 'word '.repeat(20_000);
    expect(safeSplitForTokenizer(prose)).toEqual([prose]);
  });

  it('cuts runs of 25,000 or more into 25,000-character pieces, keeping the text between them', () => {
    const text = `${'x'.repeat(N + 5_000)}${' '.repeat(2 * N + 1)}tail`;
    expect(safeSplitForTokenizer(text)).toEqual(['x'.repeat(N), 'x'.repeat(5_000), ' '.repeat(N), ' '.repeat(N), ' ', 'tail']);
    expect(safeSplitForTokenizer(`head ${'y'.repeat(N)}`)).toEqual(['head ', 'y'.repeat(N)]);
  });

  it('counts code points, not UTF-16 units', () => {
    const astral = '😀'.repeat(N - 1);
    expect(safeSplitForTokenizer(`${astral} x`)).toEqual([`${astral} x`]);
    expect(safeSplitForTokenizer(`${'😀'.repeat(N + 1)} x`)).toEqual(['😀'.repeat(N), '😀', ' x']);
  });

  it("uses Python's whitespace: U+001C separates runs and U+FEFF does not", () => {
    const separated = `${'a'.repeat(N - 1)}\u001c${'a'.repeat(10)}`;
    expect(safeSplitForTokenizer(separated)).toEqual([separated]);
    expect(safeSplitForTokenizer(`${'a'.repeat(N - 1)}\ufeffb c`)).toEqual([`${'a'.repeat(N - 1)}\ufeff`, 'b', ' c']);
  });
});

describe('advanceCodePoints()', () => {
  it('steps over surrogate pairs as one and stops at the limit', () => {
    expect(advanceCodePoints('a😀b', 0, 2)).toBe(3);
    expect(advanceCodePoints('a😀b', 0, 10)).toBe(4);
    expect(advanceCodePoints('abcdef', 1, 10, 3)).toBe(3);
  });
});
