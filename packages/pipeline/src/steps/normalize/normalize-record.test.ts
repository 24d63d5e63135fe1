import { describe, expect, it } from 'vitest';
import { isPythonReSpace } from '../../tokenizer/whitespace-classes.js';
import { compactWhitespace, generateId, hasLongSpaceRunUtf8, isBlank, isBlankUtf8 } from './normalize-record.js';
import { PYTHON_XXH3_128_IDS } from '../../../test/helpers/xxh3-oracle.js';

describe('generateId()', () => {
  it.each(PYTHON_XXH3_128_IDS)('hashes %j as Python does', (text, id) => {
    expect(generateId(text)).toBe(id);
  });
});

describe('compactWhitespace()', () => {
  it('cuts runs longer than the cap to their first characters and leaves shorter runs', () => {
    const run = ' \t'.repeat(100);
    expect(compactWhitespace(`a${run}b${' '.repeat(128)}c`, 128)).toBe(`a${run.slice(0, 128)}b${' '.repeat(128)}c`);
  });

  it('returns the same string when nothing is compacted', () => {
    const text = 'no long runs here';
    expect(compactWhitespace(text, 4)).toBe(text);
  });

  it("counts exactly Python's whitespace set", () => {
    for (let cp = 0; cp < 0x3001; cp++) {
      const ch = String.fromCodePoint(cp);
      const compacted = compactWhitespace(`a${ch.repeat(3)}b`, 2) !== `a${ch.repeat(3)}b`;
      expect(compacted, `U+${cp.toString(16)}`).toBe(isPythonReSpace(cp));
    }
    expect(compactWhitespace('\ufeff'.repeat(5), 2)).toBe('\ufeff'.repeat(5));
  });

  it('finds runs at every offset and length, as the plain regular expression does', () => {
    // the scan probes only every (cap + 1)-th character, so runs starting and ending anywhere must be found
    const spaces = [' ', '\t', '\n', '\u3000', '\x85', '\u2029'];
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (const cap of [1, 2, 3, 5, 8, 128]) {
      const re = new RegExp(`[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]{${cap + 1},}`, 'g');
      for (let t = 0; t < 300; t++) {
        let text = '';
        while (text.length < 3 * cap + 20) {
          text += 'ab'.slice(0, 1 + next(2));
          const run = next(4) === 0 ? cap - 1 + next(4) : next(3);
          for (let k = 0; k < run; k++) text += spaces[next(spaces.length)];
        }
        text = text.slice(next(3));
        expect(compactWhitespace(text, cap), JSON.stringify({ cap, text })).toBe(text.replace(re, (r) => r.slice(0, cap)));
      }
    }
  });
});

describe('isBlank()', () => {
  it('treats Python whitespace-only text as blank', () => {
    expect(isBlank('')).toBe(true);
    expect(isBlank(' \n\t\u3000\x1c')).toBe(true);
    expect(isBlank(' x ')).toBe(false);
    expect(isBlank('\ufeff')).toBe(false);
  });
});

describe('the UTF-8 checks', () => {
  const encoder = new TextEncoder();
  // whitespace of every UTF-8 length in Python's set, and non-whitespace sharing their lead bytes
  const spaces = [' ', '\t', '\x1c', '\x85', '\xa0', '\u1680', '\u2000', '\u200a', '\u2028', '\u202f', '\u205f', '\u3000'];
  const others = ['a', 'ü', '\xa1', '\u1681', '\u200b', '\u2030', '\u3001', '✓', '🙂', '\ufeff'];

  it('isBlankUtf8 agrees with isBlank', () => {
    for (const text of ['', ...spaces, spaces.join(''), `${spaces.join('')}x`, ...others, `\u3000${others.join('')}`]) {
      expect(isBlankUtf8(encoder.encode(text)), JSON.stringify(text)).toBe(isBlank(text));
    }
  });

  it('hasLongSpaceRunUtf8 finds exactly the runs compactWhitespace cuts, at every offset', () => {
    let seed = 11;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (const cap of [1, 2, 3, 4, 7, 128]) {
      for (let t = 0; t < 400; t++) {
        let text = '';
        while (text.length < 2 * cap + 12) {
          text += others[next(others.length)];
          const run = next(3) === 0 ? cap - 1 + next(3) : next(2);
          for (let k = 0; k < run; k++) text += spaces[next(spaces.length)];
        }
        expect(hasLongSpaceRunUtf8(encoder.encode(text), cap), JSON.stringify({ cap, text })).toBe(compactWhitespace(text, cap) !== text);
      }
    }
  });
});
