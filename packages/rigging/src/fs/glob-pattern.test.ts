import { describe, expect, it } from 'vitest';
import { compileGlob, expandBraces, splitGlobBase } from './glob-pattern.js';

describe('expandBraces()', () => {
  it('expands alternatives, nested braces and numeric ranges', () => {
    expect(expandBraces('a/{x,y}/b')).toEqual(['a/x/b', 'a/y/b']);
    expect(expandBraces('{a,b{1..2}}')).toEqual(['a', 'b1', 'b2']);
    expect(expandBraces('f{1..3}')).toEqual(['f1', 'f2', 'f3']);
    expect(expandBraces('f{3..1}')).toEqual(['f3', 'f2', 'f1']);
    expect(expandBraces('f{08..10}')).toEqual(['f08', 'f09', 'f10']);
    expect(expandBraces('{a,b}{c,d}')).toEqual(['ac', 'ad', 'bc', 'bd']);
  });

  it('leaves braces without a comma or range literal', () => {
    expect(expandBraces('a{b}c')).toEqual(['a{b}c']);
    expect(expandBraces('a{b')).toEqual(['a{b']);
  });
});

describe('compileGlob()', () => {
  it('keeps * and ? within one segment', () => {
    expect(compileGlob('*.json').test('a.json')).toBe(true);
    expect(compileGlob('*.json').test('x/a.json')).toBe(false);
    expect(compileGlob('a?').test('ab')).toBe(true);
    expect(compileGlob('a?').test('a/')).toBe(false);
  });

  it('lets ** span any number of segments, including none', () => {
    const re = compileGlob('a/**/b.txt');
    expect(re.test('a/b.txt')).toBe(true);
    expect(re.test('a/x/y/b.txt')).toBe(true);
    expect(re.test('ab.txt')).toBe(false);
    expect(compileGlob('**').test('x/y/z')).toBe(true);
  });

  it('supports character classes with negation', () => {
    expect(compileGlob('[ab]1').test('b1')).toBe(true);
    expect(compileGlob('[!ab]1').test('c1')).toBe(true);
    expect(compileGlob('[!ab]1').test('a1')).toBe(false);
  });
});

describe('splitGlobBase()', () => {
  it('separates the literal base from the wildcard part', () => {
    expect(splitGlobBase('gs://b/a/*/x')).toEqual({ base: 'gs://b/a', rest: '*/x' });
    expect(splitGlobBase('gs://b/*')).toEqual({ base: 'gs://b', rest: '*' });
    expect(splitGlobBase('/*.txt')).toEqual({ base: '/', rest: '*.txt' });
    expect(splitGlobBase('*.txt')).toEqual({ base: '', rest: '*.txt' });
  });
});
