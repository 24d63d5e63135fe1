import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePyJson } from './parse-py-json.js';
import { pyJsonDumps } from './py-json-dumps.js';

interface PythonCase {
  unsorted: string;
  sorted: string;
  md5: string;
  indented?: string;
}

// 120 random values json.dumps-ed by CPython 3.11 (see fixtures/generate-python-json-cases.py):
// unicode and astral keys, integer-like keys, big ints, floats across every decade, nesting;
// the first 30 also in indent=2 form (what info files use).
const cases = JSON.parse(
  readFileSync(new URL('./fixtures/python-json-cases.json', import.meta.url), 'utf8'),
) as PythonCase[];

describe('pyJsonDumps() against CPython', () => {
  it('has the fixture', () => {
    expect(cases.length).toBe(120);
    expect(cases.filter((c) => c.indented !== undefined)).toHaveLength(30);
  });

  it.each(cases.map((c, i) => [i, c] as const))('case %i: sorts and serializes exactly like json.dumps', (_i, c) => {
    const value = parsePyJson(c.unsorted);
    const sorted = pyJsonDumps(value, { sortKeys: true });
    expect(sorted).toBe(c.sorted);
    expect(createHash('md5').update(sorted).digest('hex')).toBe(c.md5);
    expect(pyJsonDumps(parsePyJson(c.sorted))).toBe(c.sorted);
    expect(pyJsonDumps(value)).toBe(c.unsorted);
    if (c.indented !== undefined) expect(pyJsonDumps(value, { indent: 2 })).toBe(c.indented);
  });
});
