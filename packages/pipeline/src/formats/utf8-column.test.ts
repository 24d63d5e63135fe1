import { describe, expect, it } from 'vitest';
import { Utf8Arena, Utf8ColumnBuilder, utf8StringAt } from './utf8-column.js';
import type { Utf8Column } from './utf8-column.js';

const encoder = new TextEncoder();
const strings = (c: Utf8Column): (string | null)[] => Array.from({ length: c.length }, (_, i) => utf8StringAt(c, i));

function build(values: (string | null)[], byteHint: number, arena: Utf8Arena): Utf8Column {
  const b = new Utf8ColumnBuilder(values.length, byteHint, null, arena);
  for (const v of values) {
    if (v === null) b.pushNull();
    else {
      const bytes = encoder.encode(v);
      b.push(bytes, 0, bytes.byteLength);
    }
  }
  return b.finish();
}

describe('Utf8Arena', () => {
  it('packs columns back to back in one buffer: each column gives back what it did not use, none overlaps another', () => {
    const arena = new Utf8Arena(4096);
    const a = build(['ünï', null, 'two'], 100, arena);
    const b = build(['b'.repeat(40), 'c'], 8, arena);
    const c = build(['🙂', ''], 50, arena);
    expect(strings(a)).toEqual(['ünï', null, 'two']);
    expect(strings(b)).toEqual(['b'.repeat(40), 'c']);
    expect(strings(c)).toEqual(['🙂', '']);
    expect(b.bytes.buffer).toBe(a.bytes.buffer);
    expect(c.bytes.buffer).toBe(a.bytes.buffer);
    // a's unused hint went back to the arena; b grew in place past its hint of 8 bytes
    expect(b.bytes.byteOffset).toBe(a.bytes.byteOffset + a.bytes.byteLength);
    expect(c.bytes.byteOffset).toBe(b.bytes.byteOffset + b.bytes.byteLength);
  });

  it('starts a new buffer when one is full and gives an outsized column a buffer of its own, copying a column that cannot grow in place', () => {
    const arena = new Utf8Arena(256);
    const first = build(['x'.repeat(50)], 50, arena);
    const big = build(['y'.repeat(100)], 100, arena);
    const grown = build(['z'.repeat(30), 'w'.repeat(200)], 60, arena);
    const after = build(['after'], 16, arena);
    expect(strings(first)).toEqual(['x'.repeat(50)]);
    expect(strings(big)).toEqual(['y'.repeat(100)]);
    expect(strings(grown)).toEqual(['z'.repeat(30), 'w'.repeat(200)]);
    expect(strings(after)).toEqual(['after']);
    expect(big.bytes.buffer).not.toBe(first.bytes.buffer);
    expect(big.bytes.buffer.byteLength).toBe(100);
    expect(grown.bytes.buffer).not.toBe(first.bytes.buffer);
  });
});
