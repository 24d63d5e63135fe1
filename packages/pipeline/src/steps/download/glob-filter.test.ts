import { describe, expect, it } from 'vitest';
import { filterByGlobs } from './glob-filter.js';

const files = [
  '.gitattributes',
  'README.md',
  'data/train/part-00000.jsonl.gz',
  'data/train/part-00001.jsonl.gz',
  'data/validation/part-00000.jsonl.gz',
  'docs/nested/README.md',
].map((path) => ({ path }));
const paths = (globs: string[]): string[] => filterByGlobs(files, globs).map((f) => f.path);

describe('filterByGlobs()', () => {
  it('keeps every file when there are no globs', () => {
    expect(paths([])).toHaveLength(files.length);
  });

  it('keeps * within one path segment', () => {
    expect(paths(['*.md'])).toEqual(['README.md']);
    expect(paths(['data/*'])).toEqual([]);
    expect(paths(['data/*/*.jsonl.gz'])).toHaveLength(3);
  });

  it('lets ** span segments', () => {
    expect(paths(['**/README.md'])).toEqual(['README.md', 'docs/nested/README.md']);
    expect(paths(['data/**'])).toHaveLength(3);
  });

  it('expands braces, ranges and character classes', () => {
    expect(paths(['data/{train,validation}/part-0000{0..0}.jsonl.gz'])).toEqual([
      'data/train/part-00000.jsonl.gz',
      'data/validation/part-00000.jsonl.gz',
    ]);
    expect(paths(['data/train/part-0000[1-9].jsonl.gz'])).toEqual(['data/train/part-00001.jsonl.gz']);
  });

  it('unions several globs without duplicates, in listing order', () => {
    expect(paths(['docs/**', '*.md', '**/README.md'])).toEqual(['README.md', 'docs/nested/README.md']);
  });

  it('accepts a leading ./', () => {
    expect(paths(['./README.md'])).toEqual(['README.md']);
  });
});
