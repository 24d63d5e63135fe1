import { mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { craftedTarGz, zeroBombTarGz } from '../../test/helpers/crafted-tar.js';
import type { CraftedEntry } from '../../test/helpers/crafted-tar.js';
import { extractBundleArchive, packBundleArchive, readBundleArchive, verifyBundleArchive } from './bundle-archive.js';
import { resolveBundleLimits } from './bundle-limits.js';
import { bundleIdOf, readBundleFiles } from './bundle-manifest.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-bundle-archive-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MIB = 1024 * 1024;

/** Yields `archive` in `chunkBytes` pieces and counts how many were taken. */
function counted(archive: Buffer, chunkBytes: number): { source: AsyncIterable<Buffer>; taken: () => number; total: number } {
  let taken = 0;
  const total = Math.ceil(archive.length / chunkBytes);
  return {
    source: (async function* () {
      for (let off = 0; off < archive.length; off += chunkBytes) {
        taken += 1;
        yield archive.subarray(off, off + chunkBytes);
      }
    })(),
    taken: () => taken,
    total,
  };
}

describe('bundle archives', () => {
  it('verifies an archive of regular files against its id', async () => {
    await writeFile(join(dir, 'a.txt'), 'a');
    const id = bundleIdOf(await readBundleFiles(dir, ['a.txt']));
    await expect(verifyBundleArchive(await packBundleArchive(dir, ['a.txt']), id)).resolves.toHaveLength(1);
  });

  it('refuses an archive with a symlink, which its id would not cover, with IRIS_BUNDLE_UNSAFE naming the reason', async () => {
    await writeFile(join(dir, 'a.txt'), 'a');
    await symlink('/etc/passwd', join(dir, 'link'));
    const archive = await packBundleArchive(dir, ['a.txt', 'link']);
    await expect(readBundleArchive(archive)).rejects.toMatchObject({ code: 'IRIS_BUNDLE_UNSAFE', details: { reason: 'symlink', path: 'link' } });
    const idOfFilesOnly = bundleIdOf(await readBundleFiles(dir, ['a.txt']));
    await expect(verifyBundleArchive(archive, idOfFilesOnly)).rejects.toMatchObject({ code: 'IRIS_BUNDLE_UNSAFE' });
  });

  it('refuses bytes that are not an archive with IRIS_INVALID_ARGUMENT', async () => {
    await expect(readBundleArchive(Buffer.from('not a tarball'))).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
  });

  const hostile: [string, CraftedEntry[], string, string][] = [
    ['a hard link', [{ path: 'a', body: 'a' }, { path: 'l', type: 'Link', linkpath: 'a' }], 'hardlink', 'l'],
    ['a FIFO', [{ path: 'f', type: 'FIFO' }], 'fifo', 'f'],
    ['a character device', [{ path: 'null', type: 'CharacterDevice' }], 'device', 'null'],
    ['a block device', [{ path: 'sda', type: 'BlockDevice' }], 'device', 'sda'],
    ['a directory entry', [{ path: 'd/', type: 'Directory' }], 'directory', 'd/'],
    ['a ".." path', [{ path: 'a/../../x', body: 'a' }], 'parent-segment', 'a/../../x'],
    ['an absolute path', [{ path: '/etc/x', body: 'a' }], 'absolute-path', '/etc/x'],
    ['an empty segment', [{ path: 'a//b', body: 'a' }], 'bad-path', 'a//b'],
    ['a file then a file under it', [{ path: 'x', body: 'a' }, { path: 'x/y', body: 'b' }], 'file-directory-clash', 'x/y'],
    ['a file under a path then that path as a file', [{ path: 'x/y', body: 'a' }, { path: 'x', body: 'b' }], 'file-directory-clash', 'x'],
    ['one path twice', [{ path: 'x', body: 'a' }, { path: 'x', body: 'b' }], 'duplicate-path', 'x'],
  ];
  it.each(hostile)('refuses %s with IRIS_BUNDLE_UNSAFE and the real reason', async (_what, entries, reason, path) => {
    await expect(readBundleArchive(craftedTarGz(entries))).rejects.toMatchObject({ code: 'IRIS_BUNDLE_UNSAFE', details: { reason, path } });
  });

  it('records and extracts setuid/setgid files as plain 0755, the mode the id records', async () => {
    const archive = craftedTarGz([
      { path: 'bin/tool', body: '#!/bin/sh\n', mode: 0o6755 },
      { path: 'data', body: 'd', mode: 0o4666 },
    ]);
    const files = await readBundleArchive(archive);
    expect(files.map((f) => [f.path, f.mode])).toEqual([
      ['bin/tool', 0o755],
      ['data', 0o644],
    ]);
    const dest = join(dir, 'tree');
    await extractBundleArchive(archive, dest, bundleIdOf(files));
    expect((await stat(join(dest, 'bin/tool'))).mode & 0o7777).toBe(0o755);
    expect((await stat(join(dest, 'data'))).mode & 0o7777).toBe(0o644);
  });

  it('stops a decompression bomb at the inflated-bytes cap, having read only the first part of it', async () => {
    const bomb = zeroBombTarGz('big', 512 * MIB); // about 0.5 MiB compressed
    const input = counted(bomb, 16 * 1024);
    const err = await readBundleArchive(input.source, { limits: { maxInflatedBytes: 8 * MIB } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'IRIS_BUNDLE_TOO_LARGE', details: { limit: 'inflated-bytes', maxInflatedBytes: 8 * MIB } });
    const inflated = (err as { details: { inflatedBytes: number } }).details.inflatedBytes;
    expect(inflated).toBeGreaterThan(8 * MIB);
    expect(inflated).toBeLessThan(9 * MIB);
    // Only the compressed bytes for the first ~8 MiB were taken from the stream, not the whole bomb.
    expect(input.taken()).toBeLessThan(input.total / 10);
  });

  it('extracts nothing of a bomb: the staging tree is removed and no more than the cap was written', async () => {
    const dest = join(dir, 'tree');
    await expect(extractBundleArchive(zeroBombTarGz('big', 256 * MIB), dest, 'f'.repeat(64), { limits: { maxInflatedBytes: 4 * MIB } })).rejects.toMatchObject({
      code: 'IRIS_BUNDLE_TOO_LARGE',
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('stops at the entry cap', async () => {
    const archive = craftedTarGz(Array.from({ length: 50 }, (_, i) => ({ path: `f${i}`, body: 'x' })));
    await expect(readBundleArchive(archive, { limits: { maxEntries: 10 } })).rejects.toMatchObject({
      code: 'IRIS_BUNDLE_TOO_LARGE',
      details: { limit: 'entries', maxEntries: 10, entries: 11 },
    });
    await expect(readBundleArchive(archive, { limits: { maxEntries: 50 } })).resolves.toHaveLength(50);
  });

  it('removes a tree whose content does not match the id', async () => {
    const dest = join(dir, 'tree');
    await expect(extractBundleArchive(craftedTarGz([{ path: 'a', body: 'a' }]), dest, 'f'.repeat(64))).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('resolveBundleLimits', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('takes options, then IRIS_BUNDLE_MAX_INFLATED_BYTES / IRIS_BUNDLE_MAX_ENTRIES, then 1 GiB and 100,000', () => {
    delete process.env['IRIS_BUNDLE_MAX_INFLATED_BYTES'];
    delete process.env['IRIS_BUNDLE_MAX_ENTRIES'];
    expect(resolveBundleLimits()).toEqual({ maxInflatedBytes: 1024 * MIB, maxEntries: 100_000 });
    process.env['IRIS_BUNDLE_MAX_INFLATED_BYTES'] = '1000';
    process.env['IRIS_BUNDLE_MAX_ENTRIES'] = '7';
    expect(resolveBundleLimits()).toEqual({ maxInflatedBytes: 1000, maxEntries: 7 });
    expect(resolveBundleLimits({ maxEntries: 3 })).toEqual({ maxInflatedBytes: 1000, maxEntries: 3 });
  });

  it('refuses an env value that is not a positive integer with IRIS_INVALID_ARGUMENT', () => {
    process.env['IRIS_BUNDLE_MAX_ENTRIES'] = '-1';
    expect(() => resolveBundleLimits()).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});
