import { describe, expect, it, vi } from 'vitest';
import { StoragePath } from '../fs/storage-path.js';
import { float } from './float-value.js';
import { pyJsonDumps } from './py-json-dumps.js';
import { compareCodePoints, sortByCodePoint } from './py-string.js';

// Expected strings were produced by CPython 3.11's json.dumps.
describe('pyJsonDumps() numbers', () => {
  it.each([
    [float(1), '1.0'],
    [0.1, '0.1'],
    [float(1e-5), '1e-05'],
    [1e-5, '1e-05'],
    [float(1e20), '1e+20'],
    [0.0003, '0.0003'],
    [0.0001, '0.0001'],
    [float(1e16), '1e+16'],
    [float(-0), '-0.0'],
    [float(0), '0.0'],
    [float(1e15), '1000000000000000.0'],
    [123.456, '123.456'],
    [1.5e-7, '1.5e-07'],
    [float(2.5e300), '2.5e+300'],
    [5e-324, '5e-324'],
    [float(1.7976931348623157e308), '1.7976931348623157e+308'],
    [0.1 + 0.2, '0.30000000000000004'],
    [float(9999999999999998), '9999999999999998.0'],
    [float(9007199254740993), '9007199254740992.0'],
    [-1.25e-5, '-1.25e-05'],
    [float(12345678901234567), '1.2345678901234568e+16'],
    [float(100), '100.0'],
  ])('writes float %s as %s', (value, expected) => {
    expect(pyJsonDumps(value)).toBe(expected);
  });

  it('writes integer-valued numbers as ints, including 1e20 and -0', () => {
    expect(pyJsonDumps(1)).toBe('1');
    expect(pyJsonDumps(-7)).toBe('-7');
    expect(pyJsonDumps(-0)).toBe('0');
    expect(pyJsonDumps(1e20)).toBe('100000000000000000000');
    expect(pyJsonDumps(1e16)).toBe('10000000000000000');
    expect(pyJsonDumps(2 ** 53 + 2)).toBe('9007199254740994');
    expect(pyJsonDumps(12345678901234567890n)).toBe('12345678901234567890');
  });

  it('writes NaN and the infinities bare', () => {
    expect(pyJsonDumps(NaN)).toBe('NaN');
    expect(pyJsonDumps([Infinity, -Infinity, float(NaN)])).toBe('[Infinity, -Infinity, NaN]');
  });
});

describe('pyJsonDumps() strings', () => {
  it('escapes non-ASCII as lower-case \\u, astral characters as surrogate pairs and DEL', () => {
    expect(pyJsonDumps('é😀\x7f\x00\x1f"\\/\n\r\t\b\f')).toBe(
      '"\\u00e9\\ud83d\\ude00\\u007f\\u0000\\u001f\\"\\\\/\\n\\r\\t\\b\\f"',
    );
    expect(pyJsonDumps('plain ascii ~')).toBe('"plain ascii ~"');
    expect(pyJsonDumps('\uABCD')).toBe('"\\uabcd"');
  });
});

describe('pyJsonDumps() containers', () => {
  it('uses ", " and ": " separators and keeps insertion order without sortKeys', () => {
    expect(pyJsonDumps({ b: 1, a: [1, null, undefined, true, false] })).toBe(
      '{"b": 1, "a": [1, null, null, true, false]}',
    );
    expect(pyJsonDumps({})).toBe('{}');
    expect(pyJsonDumps([])).toBe('[]');
  });

  it('sorts nested keys by code point, not UTF-16 unit', () => {
    const v = { b: 1, a: { '😀': 1, '\uffff': 2, z: [1, { y: 2, x: null }] } };
    expect(pyJsonDumps(v, { sortKeys: true })).toBe(
      '{"a": {"z": [1, {"x": null, "y": 2}], "\\uffff": 2, "\\ud83d\\ude00": 1}, "b": 1}',
    );
  });

  it('writes Maps with string keys and user class instances as objects', () => {
    class Point {
      constructor(
        readonly y: number,
        readonly x: number,
      ) {}
    }
    expect(pyJsonDumps(new Map<string, unknown>([['k', new Point(2, 1)]]), { sortKeys: true })).toBe(
      '{"k": {"x": 1, "y": 2}}',
    );
  });

  it('writes a StoragePath as its string form', () => {
    expect(pyJsonDumps({ p: StoragePath.parse('gs://b//x/') })).toBe('{"p": "gs://b/x"}');
  });

  it('pretty-prints in indent mode like json.dumps(indent=2)', () => {
    expect(pyJsonDumps({ a: [1, [], {}], b: { c: [true] } }, { indent: 2 })).toBe(
      '{\n  "a": [\n    1,\n    [],\n    {}\n  ],\n  "b": {\n    "c": [\n      true\n    ]\n  }\n}',
    );
    expect(pyJsonDumps([], { indent: 2 })).toBe('[]');
    expect(pyJsonDumps({ a: 1 }, { indent: 0 })).toBe('{\n"a": 1\n}');
    expect(pyJsonDumps({ b: 1, a: 2 }, { indent: 2 })).toBe('{\n  "b": 1,\n  "a": 2\n}');
  });

  it('writes values nested deeper than the fast writer goes, and a Map deep inside, like the rest', () => {
    let deep: unknown = [1.5];
    let expected = '[1.5]';
    let expectedIndented = '[\n' + ' '.repeat(2 * 100) + '1.5\n' + ' '.repeat(2 * 99) + ']';
    for (let d = 99; d > 0; d--) {
      deep = { k: deep };
      expected = `{"k": ${expected}}`;
      expectedIndented = `{\n${' '.repeat(2 * d)}"k": ${expectedIndented.trimStart()}\n${' '.repeat(2 * (d - 1))}}`;
    }
    expect(pyJsonDumps(deep)).toBe(expected);
    expect(pyJsonDumps(deep, { indent: 2 })).toBe(expectedIndented);
    expect(pyJsonDumps({ b: [{ m: new Map<string, unknown>([['z', 1], ['a', float(2)]]) }], a: 'x' }, { sortKeys: true })).toBe('{"a": "x", "b": [{"m": {"a": 2.0, "z": 1}}]}');
  });

  it('rejects a negative indent', () => {
    expect(() => pyJsonDumps(1, { indent: -1 })).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
  });
});

describe('pyJsonDumps() strict mode', () => {
  const cases: [string, unknown, string][] = [
    ['a function', { a: { b: [1, () => 1] } }, 'a.b[1]'],
    ['a symbol', { s: Symbol('x') }, 's'],
    ['a Set', { a: new Set([1]) }, 'a'],
    ['a Date', [new Date(0)], '[0]'],
    ['a RegExp', { r: /x/ }, 'r'],
    ['a Buffer', { buf: Buffer.from('x') }, 'buf'],
    ['a Map with a number key', { m: new Map([[1, 2]]) }, 'm'],
  ];
  it.each(cases)('throws RIGGING_INVALID_ARGUMENT for %s with the key path', (_name, value, path) => {
    expect(() => pyJsonDumps(value)).toThrow(
      expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT', details: expect.objectContaining({ path }) }),
    );
  });

  it('throws on a cycle but accepts a shared, acyclic reference', () => {
    const shared = { x: 1 };
    expect(pyJsonDumps({ a: shared, b: shared })).toBe('{"a": {"x": 1}, "b": {"x": 1}}');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = { back: cyclic };
    expect(() => pyJsonDumps(cyclic)).toThrow(
      expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT', details: expect.objectContaining({ path: 'self.back', segments: ['self', 'back'] }) }),
    );
  });

  it('refuses objects the reject hook names', () => {
    class Placeholder {}
    const reject = (v: object): string | undefined => (v instanceof Placeholder ? 'a Placeholder' : undefined);
    expect(() => pyJsonDumps({ p: [new Placeholder()] }, { reject })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ path: 'p[0]', kind: 'a Placeholder' }) }),
    );
  });
});

describe('pyJsonDumps() lenient mode', () => {
  it('stringifies what JSON cannot hold, warning once per kind, and never throws', () => {
    const onWarning = vi.fn();
    const cyclic: Record<string, unknown> = {};
    cyclic['me'] = cyclic;
    function myFn(): void {}
    const text = pyJsonDumps(
      { f: myFn, g: myFn, s: new Set([1, 2]), d: new Date(0), r: /x/g, m: new Map([[1, 'one']]), c: cyclic },
      { strict: false, onWarning },
    );
    expect(text).toBe(
      '{"f": "<function myFn>", "g": "<function myFn>", "s": [1, 2], "d": "1970-01-01T00:00:00.000Z", ' +
        '"r": "/x/g", "m": {"1": "one"}, "c": {"me": "<circular reference>"}}',
    );
    expect(onWarning.mock.calls.map((c) => String(c[0]).split(' ')[2])).toEqual([
      'function', 'Set', 'Date', 'RegExp', 'cycle',
    ]);
  });
});

describe('compareCodePoints()', () => {
  it('orders astral characters after the rest of the BMP', () => {
    expect(['😀', '\uffff', 'a', 'ab', ''].sort(compareCodePoints)).toEqual(['', 'a', 'ab', '\uffff', '😀']);
  });

  it('sortByCodePoint() agrees with it with and without surrogates', () => {
    expect(sortByCodePoint(['b', 'a', '\uffff', 'B'])).toEqual(['B', 'a', 'b', '\uffff']);
    expect(sortByCodePoint(['😀', '\uffff', 'a'])).toEqual(['a', '\uffff', '😀']);
  });

  it('sortByCodePoint() sorts few and many keys alike (seeded arrays of 0 to 30 keys)', () => {
    const alphabet = ['a', 'b', 'B', '_', '1', 'é', '\uffff', '😀', 'ab', ''];
    let s = 11;
    const rnd = (n: number): number => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s % n;
    };
    for (let t = 0; t < 300; t++) {
      const keys = Array.from({ length: rnd(31) }, () => `${alphabet[rnd(alphabet.length)]}${alphabet[rnd(alphabet.length)]}`);
      expect(sortByCodePoint([...keys])).toEqual([...keys].sort(compareCodePoints));
    }
  });
});
