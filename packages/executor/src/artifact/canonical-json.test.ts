import { float } from '@marin/rigging';
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

describe('fingerprintHash()', () => {
  it('is the first 8 hex digits of md5 (Python: hashlib.md5(payload.encode()).hexdigest()[:8])', () => {
    expect(fingerprintHash('{}')).toBe('99914b93');
  });
});
