import { describe, expect, it } from 'vitest';
import { StoragePath, prefixJoin, splitGcsPath } from './storage-path.js';

describe('StoragePath', () => {
  it('collapses empty segments and drops a trailing slash', () => {
    expect(StoragePath.parse('gs://b//x/y/').toString()).toBe('gs://b/x/y');
    expect(StoragePath.normalize('/a//b/')).toBe('/a/b');
    expect(StoragePath.normalize('a/./../b')).toBe('a/./../b');
  });

  it('canonicalises scheme aliases', () => {
    expect(StoragePath.parse('gcs://b/x').toString()).toBe('gs://b/x');
    expect(StoragePath.parse('GS://b/x').scheme).toBe('gs');
    expect(StoragePath.parse('s3a://b/k').toString()).toBe('s3://b/k');
  });

  it('keeps the whole mirror remainder as the key', () => {
    const p = StoragePath.parse('mirror://a/b');
    expect(p).toMatchObject({ scheme: 'mirror', netloc: '', key: 'a/b' });
    expect(p.bucket).toBeNull();
    expect(p.toString()).toBe('mirror://a/b');
  });

  it('treats file:// as local and rooted', () => {
    const p = StoragePath.parse('file:///tmp/x');
    expect(p).toMatchObject({ scheme: 'file', netloc: '', rooted: true, key: 'tmp/x', isLocal: true, isRemote: false });
    expect(p.toString()).toBe('file:///tmp/x');
  });

  it('is local only for bare paths and file://', () => {
    expect(StoragePath.parse('/a').isLocal).toBe(true);
    expect(StoragePath.parse('rel/a').isLocal).toBe(true);
    expect(StoragePath.parse('rel/a').rooted).toBe(false);
    expect(StoragePath.parse('gs://b/a').isLocal).toBe(false);
    expect(StoragePath.parse('memory://b/a').isRemote).toBe(true);
  });

  it('prints a bucket root without a slash and exposes bucket, key, name and parent', () => {
    const p = StoragePath.parse('gs://b/x/y.txt');
    expect(p.bucket).toBe('b');
    expect(p.key).toBe('x/y.txt');
    expect(p.name).toBe('y.txt');
    expect(p.parent.toString()).toBe('gs://b/x');
    expect(p.parent.parent.toString()).toBe('gs://b');
    expect(Object.isFrozen(p)).toBe(true);
  });

  it('joins relative parts and rejects rooted or scheme-carrying parts', () => {
    expect(StoragePath.parse('gs://b/x').join('y/z', 'w').toString()).toBe('gs://b/x/y/z/w');
    expect(() => StoragePath.parse('gs://b').join('/abs')).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
    expect(() => StoragePath.parse('gs://b').join('gs://c/x')).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
  });

  it('computes relativeTo structurally and throws for an unrelated path', () => {
    expect(StoragePath.parse('gs://b/base/x/y').relativeTo('gs://b/base/')).toBe('x/y');
    expect(StoragePath.parse('/tmp/a/b').relativeTo(StoragePath.parse('file:///tmp'))).toBe('a/b');
    expect(() => StoragePath.parse('gs://b/x').relativeTo('gs://c/x')).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
    expect(() => StoragePath.parse('gs://b/xy').relativeTo('gs://b/x')).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
  });
});

describe('prefixJoin()', () => {
  it('joins with exactly one slash and never collapses // inside rel', () => {
    expect(prefixJoin('gs://b/', '/a')).toBe('gs://b/a');
    expect(prefixJoin('gs://b//', '//a//b')).toBe('gs://b/a//b');
    expect(prefixJoin('/tmp/x', 'y')).toBe('/tmp/x/y');
    expect(prefixJoin('file:///', 'y')).toBe('file:///y');
    expect(prefixJoin('/', 'y')).toBe('/y');
    expect(prefixJoin('gs://b', '')).toBe('gs://b');
  });
});

describe('splitGcsPath()', () => {
  it('splits bucket and key', () => {
    expect(splitGcsPath('gs://b/k/x')).toEqual({ bucket: 'b', key: 'k/x' });
    expect(splitGcsPath('gs://b')).toEqual({ bucket: 'b', key: '' });
    expect(splitGcsPath('gcs://b/')).toEqual({ bucket: 'b', key: '' });
    expect(() => splitGcsPath('/local')).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
  });
});
