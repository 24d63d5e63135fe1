import { describe, expect, it } from 'vitest';
import { shellQuote } from './shell-quote.js';

describe('shellQuote()', () => {
  it('leaves plain words readable and single-quotes everything else', () => {
    expect(shellQuote('--prefix=/tmp/x')).toBe('--prefix=/tmp/x');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});
