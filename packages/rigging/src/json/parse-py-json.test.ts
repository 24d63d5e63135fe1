import { describe, expect, it } from 'vitest';
import { FloatValue } from './float-value.js';
import { parsePyJson } from './parse-py-json.js';
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
