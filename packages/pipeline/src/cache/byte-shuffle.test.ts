import { describe, expect, it } from 'vitest';
import { shuffleBytes, unshuffleBytes } from './byte-shuffle.js';

describe('shuffleBytes()', () => {
  it('groups byte j of every element together and keeps a partial tail in place', () => {
    const src = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect([...shuffleBytes(src, 4)]).toEqual([1, 5, 2, 6, 3, 7, 4, 8, 9, 10]);
  });

  it('round-trips through unshuffleBytes for every typesize', () => {
    const src = Uint8Array.from({ length: 1003 }, (_, i) => (i * 37) & 0xff);
    for (const typesize of [1, 2, 3, 4, 8]) expect(unshuffleBytes(shuffleBytes(src, typesize), typesize)).toEqual(src);
  });
});
