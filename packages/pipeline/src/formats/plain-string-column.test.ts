import { ByteWriter } from 'hyparquet-writer';
import { useDictionary } from 'hyparquet-writer/src/dictionary.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { describe, expect, it } from 'vitest';
import { definitionLevels, dictionaryRejected } from './plain-string-column.js';
import type { StringValues } from './plain-string-column.js';

/** hyparquet-writer's encoding of the same levels, the layout the fast path must reproduce byte for byte. */
function hyparquetLevels(values: StringValues, first: number, end: number): Uint8Array {
  const levels = values.slice(first, end).map((v) => (v === null || v === undefined ? 0 : 1));
  const w = new ByteWriter();
  writeRleBitPackedHybrid(w, levels, 1);
  return new Uint8Array(w.getBytes());
}

function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

describe('definitionLevels()', () => {
  it('lays out the RLE/bit-packed hybrid exactly as hyparquet-writer does', () => {
    const patterns: StringValues[] = [
      [],
      ['a'],
      [null],
      Array.from({ length: 1000 }, () => 'x'),
      Array.from({ length: 1000 }, () => null),
      Array.from({ length: 301 }, (_, i) => (i % 2 === 0 ? 'x' : null)),
      // runs of 7, 8 and 9 around the RLE threshold, and runs of more than 63 (a two-byte varint header)
      ...[7, 8, 9, 64, 200].map((run) => Array.from({ length: 5 * run + 3 }, (_, i) => (Math.floor(i / run) % 2 === 0 ? '' : null))),
    ];
    for (const density of [0.01, 0.3, 0.5, 0.97]) {
      const next = lcg(Math.round(density * 1000));
      patterns.push(Array.from({ length: 5000 }, (_, i) => (next() < density ? null : `v${i}`)));
    }
    for (const values of patterns) {
      expect(definitionLevels(values, 0, values.length)).toEqual(hyparquetLevels(values, 0, values.length));
      // a page is any slice of the chunk
      const first = Math.floor(values.length / 3);
      const end = Math.floor((values.length * 2) / 3) + 1;
      if (first < end && end <= values.length) expect(definitionLevels(values, first, end)).toEqual(hyparquetLevels(values, first, end));
    }
  });
});

describe('dictionaryRejected()', () => {
  it('takes the chunks hyparquet-writer writes PLAIN and leaves columns of few distinct values to its dictionary', () => {
    const urls = Array.from({ length: 5000 }, (_, i) => `https://example.com/${i}`);
    const sources = Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? 'fineweb' : 'dclm'));
    const withNulls = urls.map((u, i) => (i % 4 === 0 ? null : u));
    const bytes = urls.map((u) => new TextEncoder().encode(u));
    const allNull = Array.from({ length: 10 }, () => null);
    expect(dictionaryRejected(urls)).toBe(true);
    expect(dictionaryRejected(withNulls)).toBe(true);
    expect(dictionaryRejected(bytes)).toBe(true);
    expect(dictionaryRejected(allNull)).toBe(true);
    expect(dictionaryRejected([])).toBe(true);
    expect(dictionaryRejected(sources)).toBe(false);
    expect(dictionaryRejected(bytes.map((_, i) => bytes[i % 5] as Uint8Array))).toBe(false);
    // whatever it takes, hyparquet-writer would have written without a dictionary too
    const next = lcg(3);
    for (const distinct of [2, 50, 500, 900, 950, 1000, 5000]) {
      const values = Array.from({ length: 5000 }, () => (next() < 0.1 ? null : `value ${Math.floor(next() * distinct)}`));
      if (dictionaryRejected(values)) expect(useDictionary(values, 'BYTE_ARRAY', undefined, undefined, undefined, false).dictionary).toBeUndefined();
    }
    for (const values of [urls, withNulls, bytes, allNull]) expect(useDictionary(values, 'BYTE_ARRAY', undefined, undefined, undefined, false).dictionary).toBeUndefined();
  });
});
