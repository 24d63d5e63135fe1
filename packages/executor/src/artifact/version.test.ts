import { describe, expect, it } from 'vitest';
import { ExecutorError } from '../errors.js';
import { isMutableVersion, pythonUrlScheme, validatePathSegment, validateVersion } from './version.js';

const codeOf = (fn: () => void): string | null => {
  try {
    fn();
    return null;
  } catch (e) {
    return ExecutorError.is(e) ? e.code : 'other';
  }
};

describe('validateVersion()', () => {
  it.each(['2026.11.25', '2026.11.25.2', 'dev', 'alice-dev', '2026.11.25\n'])('accepts %j', (v) => {
    expect(codeOf(() => validateVersion(v))).toBeNull();
  });

  it.each(['v1', '2026.1.25', '26.11.25', '2026.11.25.', '', '/dev', 'x:dev', 'a..b-dev', 'Dev'])('refuses %j with EXECUTOR_INVALID_VERSION', (v) => {
    expect(codeOf(() => validateVersion(v))).toBe('EXECUTOR_INVALID_VERSION');
  });

  it('reads digits as Python does (any Unicode decimal digit)', () => {
    expect(codeOf(() => validateVersion('٢٠٢٦.١١.٢٥'))).toBeNull();
  });
});

describe('validatePathSegment()', () => {
  it('allows a slash inside a name but not at either end, nor .. nor a scheme', () => {
    expect(codeOf(() => validatePathSegment('name', 'hello_world/data'))).toBeNull();
    for (const bad of ['/a', 'a/', 'a/../b', 'gs://x', 's3:x', ' a:b']) expect(codeOf(() => validatePathSegment('name', bad))).toBe('EXECUTOR_INVALID_VERSION');
  });
});

describe('pythonUrlScheme()', () => {
  it('finds a scheme where urlparse does', () => {
    expect(pythonUrlScheme('gs://b/x')).toBe('gs');
    expect(pythonUrlScheme('A+b.c-d:e')).toBe('a+b.c-d');
    expect(pythonUrlScheme('1a:b')).toBe('');
    expect(pythonUrlScheme('\ta:b')).toBe('a');
    expect(pythonUrlScheme('no-colon')).toBe('');
  });
});

describe('isMutableVersion()', () => {
  it('is dev and <label>-dev only', () => {
    expect([isMutableVersion('dev'), isMutableVersion('x-dev'), isMutableVersion('2026.11.25'), isMutableVersion('devx')]).toEqual([true, true, false, false]);
  });
});
