import { describe, expect, it } from 'vitest';
import { isPythonReSpace, isUnicodeWhiteSpace } from './whitespace-classes.js';

// Enumerated with Python 3.11: [c for c in range(0x110000) if re.match(r"\s", chr(c))], and the same with `regex`.
const PYTHON_RE = [
  0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];
const REGEX_MODULE = PYTHON_RE.filter((cp) => cp < 0x1c || cp > 0x1f);

function allMatching(pred: (cp: number) => boolean): number[] {
  const out: number[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) if (pred(cp)) out.push(cp);
  return out;
}

describe('whitespace classes', () => {
  it("matches exactly Python re's \\s over every code point", () => {
    expect(allMatching(isPythonReSpace)).toEqual(PYTHON_RE);
  });

  it("matches exactly the regex module's \\s over every code point", () => {
    expect(allMatching(isUnicodeWhiteSpace)).toEqual(REGEX_MODULE);
  });

  it('differs from JavaScript \\s where Python does', () => {
    expect(/\s/.test('\ufeff')).toBe(true);
    expect(isPythonReSpace(0xfeff)).toBe(false);
    expect(/\s/.test('\x1c')).toBe(false);
    expect(isPythonReSpace(0x1c)).toBe(true);
    expect(isPythonReSpace(0x85)).toBe(true);
  });
});
