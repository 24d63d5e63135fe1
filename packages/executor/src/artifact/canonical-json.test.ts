import { float, pyJsonDumps } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { ExecutorError } from '../errors.js';
import { canonicalJson, fingerprintHash } from './canonical-json.js';

describe('canonicalJson()', () => {
  it('writes Python json.dumps(sort_keys=True) text: sorted keys, float forms, ensure_ascii, sets', () => {
    expect(canonicalJson({ b: [1, float(2)], a: 'é😀', c: NaN, d: new Set([2, 1]), e: float(1e16), f: 1e-5 })).toBe(
      '{"a": "\\u00e9\\ud83d\\ude00", "b": [1, 2.0], "c": NaN, "d": {"__set__": [1, 2]}, "e": 1e+16, "f": 1e-05}',
    );
  });

  it('orders set members by their canonical JSON', () => {
    expect(canonicalJson(new Set(['b', 'a', '10', '9']))).toBe('{"__set__": ["10", "9", "a", "b"]}');
  });

  it.each([
    ['a function', { f: () => 1 }],
    ['a Date', { d: new Date(0) }],
    ['a class instance', { x: new (class Foo {})() }],
    ['a symbol', { s: Symbol('x') }],
  ])('refuses %s with EXECUTOR_UNCANONICAL_CONFIG and its key path', (_what, config) => {
    try {
      canonicalJson(config);
      expect.unreachable();
    } catch (e) {
      expect(ExecutorError.hasCode(e, 'EXECUTOR_UNCANONICAL_CONFIG')).toBe(true);
      expect((e as ExecutorError).details?.['path']).toMatch(/^[fdxs]$/);
    }
  });

  it('refuses a cycle', () => {
    const a: Record<string, unknown> = {};
    a['self'] = a;
    expect(() => canonicalJson(a)).toThrow(expect.objectContaining({ code: 'EXECUTOR_UNCANONICAL_CONFIG' }) as Error);
  });
});

describe('canonicalJson() common-case writer', () => {
  it('writes the same bytes as the general writer for configs of JSON values only', () => {
    const configs: unknown[] = [
      { z: 1, a: [float(1), 0.1, -0, 1e21, 123456789012345680000, 2n ** 70n], m: { 'é': 'x\n"\\', '\ud83d\ude00': null, k: undefined } },
      [[], {}, [[[]]], true, false, 'plain'],
      Object.assign(Object.create(null) as object, { b: 2, a: 1 }),
    ];
    for (const c of configs) expect(canonicalJson(c)).toBe(pyJsonDumps(c, { sortKeys: true }));
  });

  it('hands sets, maps, class instances and deep values to the general writer (same rules, same errors)', () => {
    expect(canonicalJson({ a: [{ s: new Set([3, 1]) }] })).toBe('{"a": [{"s": {"__set__": [1, 3]}}]}');
    expect(canonicalJson({ m: new Map([['b', 1], ['a', 2]]) })).toBe('{"m": {"a": 2, "b": 1}}');
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(canonicalJson(deep)).toBe(`${'['.repeat(200)}1${']'.repeat(200)}`);
    try {
      canonicalJson({ ok: [1, 2], bad: [{ f: () => 1 }] });
      expect.unreachable();
    } catch (e) {
      expect(ExecutorError.hasCode(e, 'EXECUTOR_UNCANONICAL_CONFIG')).toBe(true);
      expect((e as ExecutorError).details?.['path']).toBe('bad[0].f');
    }
  });

  it('does not copy a config without sets (the value passed to pyJsonDumps is the config itself)', () => {
    const inner = { s: new Set(['b', 'a']) };
    const config = { keep: { x: 1 }, inner };
    expect(canonicalJson(config)).toBe('{"inner": {"s": {"__set__": ["a", "b"]}}, "keep": {"x": 1}}');
    expect(inner.s).toBeInstanceOf(Set); // the caller's config is left as it was
  });
});

describe('fingerprintHash()', () => {
  it('is the first 8 hex digits of md5 (Python: hashlib.md5(payload.encode()).hexdigest()[:8])', () => {
    expect(fingerprintHash('{}')).toBe('99914b93');
  });
});
