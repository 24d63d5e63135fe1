import { describe, expect, it } from 'vitest';
import { float } from './float-value.js';
import { isPyJsonObject, isRecord } from './json-object.js';
import { parsePyJson } from './parse-py-json.js';

describe('isRecord()', () => {
  it('accepts JSON objects and rejects null, arrays and primitives', () => {
    expect(isRecord(JSON.parse('{"a": 1}'))).toBe(true);
    expect(isRecord({})).toBe(true);
    for (const x of [null, undefined, [], [1], 'a', 1, true]) expect(isRecord(x)).toBe(false);
  });
});

describe('isPyJsonObject()', () => {
  it('walks dicts but treats floats and Maps as leaves', () => {
    const parsed = parsePyJson('{"lr": 1.0, "cfg": {"n": 2}}') as Record<string, unknown>;
    expect(isPyJsonObject(parsed)).toBe(true);
    expect(isPyJsonObject(parsed['cfg'])).toBe(true);
    expect(isPyJsonObject(parsed['lr'])).toBe(false);
    expect(isPyJsonObject(float(1))).toBe(false);
    expect(isPyJsonObject(new Map([['a', 1]]))).toBe(false);
    expect(isPyJsonObject([])).toBe(false);
    expect(isPyJsonObject(null)).toBe(false);
  });
});
