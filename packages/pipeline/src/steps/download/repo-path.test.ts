import { describe, expect, it } from 'vitest';
import { assertSafeListing, bookkeepingCollision, unsafePathReason } from './repo-path.js';

const file = (path: string) => ({ path, size: 1, url: `x://${path}` });

describe('unsafePathReason()', () => {
  it.each(['README.md', 'data/train/part-00000.jsonl', '.gitattributes', 'a..b/c...txt', 'dir/.hidden', 'ünïcode/文件.txt'])('accepts %j', (path) => {
    expect(unsafePathReason(path)).toBeNull();
  });

  it.each(['', '/abs', '..', '../x', 'a/../../x', 'a/..', '.', './x', 'a/./b', 'a//b', 'a/', 'a\\b', 'a\u0000b', 'a\nb', 'a\u007fb'])('refuses %j', (path) => {
    expect(unsafePathReason(path)).toEqual(expect.any(String));
  });
});

describe('bookkeepingCollision()', () => {
  it.each([
    ['.executor_status', '.executor_status'],
    ['.executor_status.lock', '.executor_status.lock'],
    ['.executor_info', '.executor_info'],
    ['.EXECUTOR_INFO/x', '.executor_info'],
    ['.executor_anything_new', '.executor_anything_new'],
    ['.metrics/success-part-00000-of-00001.jsonl', '.metrics'],
    ['.artifact.json', '.artifact.json'],
    ['Provenance.json', 'provenance.json'],
    ['test_write_access', 'test_write_access'],
  ])('finds %j colliding with %j', (path, name) => {
    expect(bookkeepingCollision(path)).toBe(name);
  });

  it.each(['data/provenance.json', 'sub/.executor_status', 'metrics/x', '.metricsx', 'executor_status'])('lets %j through', (path) => {
    expect(bookkeepingCollision(path)).toBeNull();
  });
});

describe('assertSafeListing()', () => {
  it('accepts an ordinary listing', () => {
    expect(() => assertSafeListing([file('README.md'), file('data/a'), file('data/b/c')], 'hub')).not.toThrow();
  });

  it.each([
    [['../x'], '../x'],
    [['ok', '.executor_status'], '.executor_status'],
    [['a', 'a'], 'a'],
    [['a', 'a/b'], 'a/b'],
  ])('refuses %j naming %j', (paths, path) => {
    expect(() => assertSafeListing(paths.map(file), 'hub')).toThrow(expect.objectContaining({ code: 'PIPELINE_UNSAFE_PATH', details: expect.objectContaining({ path }) }));
  });
});
