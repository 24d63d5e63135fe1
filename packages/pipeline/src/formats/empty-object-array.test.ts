import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { emptyObjectArray } from './empty-object-array.js';

// V8's own view of an array's elements kind, through its natives syntax (enabled for functions compiled from here on)
setFlagsFromString('--allow-natives-syntax');
const hasObjectElements = new Function('a', 'return %HasObjectElements(a)') as (a: unknown[]) => boolean;

describe('emptyObjectArray()', () => {
  it('returns an empty array that V8 already holds as an array of objects, unlike a literal []', () => {
    const a = emptyObjectArray<string>();
    expect(a).toEqual([]);
    expect(hasObjectElements(a)).toBe(true);
    expect(hasObjectElements([])).toBe(false);
  });

  it('returns a new array each time', () => {
    const a = emptyObjectArray<number>();
    const b = emptyObjectArray<number>();
    a.push(1);
    expect(a).toEqual([1]);
    expect(b).toEqual([]);
  });
});
