import { describe, expect, it } from 'vitest';
import { FloatValue } from './float-value.js';
import { parsePyJson, parsePyJsonGeneral } from './parse-py-json.js';
import { pyJsonDumps } from './py-json-dumps.js';

describe('parsePyJson()', () => {
  it('reads floats as FloatValue and ints as numbers', () => {
    const v = parsePyJson('{"a": 1.0, "b": 1, "c": 1e-05, "d": 2E3}') as Record<string, unknown>;
    expect(FloatValue.is(v['a'])).toBe(true);
    expect(v['b']).toBe(1);
    expect((v['c'] as FloatValue).value).toBe(1e-5);
    expect((v['d'] as FloatValue).value).toBe(2000);
  });

  it('accepts bare NaN, Infinity and -Infinity', () => {
    const v = parsePyJson('[NaN, Infinity, -Infinity]') as FloatValue[];
    expect(v.map((x) => x.value)).toEqual([NaN, Infinity, -Infinity]);
  });

  it('keeps huge ints exact as bigint', () => {
    expect(parsePyJson('12345678901234567891')).toBe(12345678901234567891n);
    expect(parsePyJson('100000000000000000000')).toBe(1e20);
  });

  it('round-trips Python output byte for byte', () => {
    const texts = [
      '{"worker_id": "host-1-2", "timestamp": 1732200000.123456}',
      '{"config": {"lr": 0.0003, "n": 1.0, "s": "\\u00e9\\ud83d\\ude00"}, "dependencies": [], "name": "x"}',
      '[1e+20, -0.0, 100000000000000000000, null, true, false, {}]',
    ];
    for (const t of texts) expect(pyJsonDumps(parsePyJson(t))).toBe(t);
    const indented = '{\n  "a": [\n    1.5,\n    {}\n  ]\n}';
    expect(pyJsonDumps(parsePyJson(indented), { indent: 2 })).toBe(indented);
  });

  it('keeps the file order of integer-like keys for re-serialization', () => {
    const text = '{"b": 1, "10": {"z": 0, "2": 1}, "2": 3, "a": [{"1": 1, "0": 0}]}';
    const v = parsePyJson(text) as Record<string, unknown>;
    expect(pyJsonDumps(v)).toBe(text);
    expect(Object.keys(v)).toEqual(['2', '10', 'b', 'a']);
    expect(pyJsonDumps(v, { sortKeys: true })).toBe('{"10": {"2": 1, "z": 0}, "2": 3, "a": [{"0": 0, "1": 1}], "b": 1}');
    v['new'] = 4;
    delete v['b'];
    expect(pyJsonDumps(v)).toBe('{"10": {"z": 0, "2": 1}, "2": 3, "a": [{"1": 1, "0": 0}], "new": 4}');
  });

  it('keeps the first position and the last value of a duplicate key, as Python does', () => {
    expect(pyJsonDumps(parsePyJson('{"a": 1, "b": 2, "a": 3}'))).toBe('{"a": 3, "b": 2}');
    expect(pyJsonDumps(parsePyJson('{"1": 1, "b": 2, "1": 3}'))).toBe('{"1": 3, "b": 2}');
  });

  it('decodes escapes and stores a __proto__ key as data', () => {
    const v = parsePyJson('{"__proto__": {"x": 1}, "s": "\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__', 's']);
    expect(v['s']).toBe('"\\/\b\f\n\r\té');
  });

  it.each(['', '{', '[1,]', '{"a" 1}', '"abc', '01x', '{"a": 1} x', '"\\q"', '"\\u12"', 'nul'])(
    'rejects malformed text %j with RIGGING_INVALID_ARGUMENT',
    (text) => {
      expect(() => parsePyJson(text)).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
    },
  );
});

/** A seeded generator of Python-style JSON texts (duplicate and integer-like keys, escapes, floats, big ints). */
function randomTexts(seed: number, count: number): string[] {
  let s = seed >>> 0;
  const rnd = (n: number): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
  const keys = ['a', 'b', 'lr', 'name', '0', '10', '007', '__proto__', 'k\\u00e9', '\\u0031', 'x y', 'é'];
  const scalars = ['1', '-0', '0', '-0.0', '1.0', '0.005', '1e-05', '2E3', '1e+20', '-1.5e-07', '12345678901234567891', '100000000000000000000',
    '123456789012345', 'NaN', 'Infinity', '-Infinity', 'true', 'false', 'null', '""', '"s"', '"\\"q\\" \\\\ \\/ \\n"', '"\\ud83d\\ude00 \\u00e9"', '"2026.11.25"', '"a: b"'];
  const value = (depth: number, indent: string | null, level: number): string => {
    const r = rnd(depth > 3 ? 2 : 6);
    if (r < 3) return scalars[rnd(scalars.length)] as string;
    const n = rnd(5);
    const pad = (l: number): string => (indent === null ? '' : `\n${indent.repeat(l)}`);
    const sep = indent === null ? ', ' : ',';
    const items: string[] = [];
    for (let i = 0; i < n; i++) {
      const v = value(depth + 1, indent, level + 1);
      items.push(r < 5 ? `${pad(level + 1)}"${keys[rnd(keys.length)]}": ${v}` : `${pad(level + 1)}${v}`);
    }
    if (n === 0) return r < 5 ? '{}' : '[]';
    return r < 5 ? `{${items.join(sep)}${pad(level)}}` : `[${items.join(sep)}${pad(level)}]`;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(value(0, rnd(2) === 0 ? null : '  ', 0));
  return out;
}

/** Everything parsePyJson's result carries: values, FloatValue-ness, key order as JavaScript and as Python see it. */
function shape(v: unknown): unknown {
  if (FloatValue.is(v)) return { float: Object.is(v.value, -0) ? '-0' : String(v.value) };
  if (typeof v === 'bigint') return { bigint: v.toString() };
  if (typeof v === 'number') return Object.is(v, -0) ? { int: '-0' } : v;
  if (Array.isArray(v)) return v.map(shape);
  if (typeof v === 'object' && v !== null) {
    const keys = Object.keys(v);
    return { proto: Object.getPrototypeOf(v) === Object.prototype, keys, pyOrder: pyJsonDumps(Object.fromEntries(keys.map((k) => [k, 0]))) === pyJsonDumps(v, { strict: false, onWarning: () => undefined }) ? null : pyJsonDumps(v), entries: keys.map((k) => shape((v as Record<string, unknown>)[k])) };
  }
  return v;
}

describe('parsePyJson() native fast path', () => {
  it('reads 2,000 seeded Python-style texts exactly as the general parser (values, floats, key order, dumps)', () => {
    let compared = 0;
    for (const text of randomTexts(7, 2000)) {
      const general = parsePyJsonGeneral(text);
      const fast = parsePyJson(text);
      expect(shape(fast), text).toEqual(shape(general));
      expect(pyJsonDumps(fast, { strict: false, onWarning: () => undefined }), text).toBe(pyJsonDumps(general, { strict: false, onWarning: () => undefined }));
      compared++;
    }
    expect(compared).toBe(2000);
  });

  it('keeps a float under a duplicate key where Python puts it', () => {
    // The dropped first value shifts the document order of the numbers: the general parser reads this one.
    const v = parsePyJson('{"a": "x", "b": 2.0, "a": 2}') as Record<string, unknown>;
    expect(v['a']).toBe(2);
    expect(FloatValue.is(v['b'])).toBe(true);
    expect(pyJsonDumps(v)).toBe('{"a": 2, "b": 2.0}');
  });

  it('stores a float under a __proto__ key as data', () => {
    const v = parsePyJson('{"__proto__": 1.5, "b": [0.5]}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__', 'b']);
    expect(pyJsonDumps(v)).toBe('{"__proto__": 1.5, "b": [0.5]}');
  });
});
