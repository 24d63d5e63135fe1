import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BundleCache } from '../../src/worker/bundle-cache.js';
import { readBundleArchive, verifyBundleArchive } from '../../src/bundle/bundle-archive.js';
import { bundleFileOf, bundleIdOf } from '../../src/bundle/bundle-manifest.js';
import { craftedTarGz, zeroBombTarGz } from '../helpers/crafted-tar.js';
import { createBundle } from '../../src/bundle/create-bundle.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-worker-bundle-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(root: string, path: string, content: string): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
}

async function gitWorkspace(): Promise<string> {
  const root = join(dir, 'ws');
  await mkdir(root);
  execFileSync('git', ['init', '-q', root]);
  await write(root, '.gitignore', 'ignored.txt\nbuild-out/\n');
  await write(root, 'package.json', '{"name":"ws","private":true}\n');
  await write(root, 'src/main.js', 'console.log("hi")\n');
  await write(root, 'bin/run.sh', '#!/bin/sh\necho run\n');
  await chmod(join(root, 'bin/run.sh'), 0o755);
  await write(root, 'ignored.txt', 'secret');
  await write(root, 'build-out/x.js', 'built');
  await write(root, 'node_modules/dep/index.js', 'dep');
  await write(root, 'dist/out.js', 'dist');
  await write(root, 'debug.log', 'log');
  await write(root, '.nx/cache', 'nx');
  execFileSync('git', ['-C', root, 'add', '.gitignore', 'package.json', 'src/main.js']);
  return root;
}

describe('createBundle()', () => {
  it('gives the same id across runs and a different one when a tracked file changes', async () => {
    const root = await gitWorkspace();
    const a = await createBundle({ root });
    const b = await createBundle({ root });
    expect(a.id).toMatch(/^[0-9a-f]{64}$/);
    expect(b.id).toBe(a.id);
    expect(b.archive.equals(a.archive)).toBe(true);
    await write(root, 'src/main.js', 'console.log("changed")\n');
    expect((await createBundle({ root })).id).not.toBe(a.id);
  });

  it('includes tracked and untracked-unignored files and excludes ignored ones, node_modules, dist, .nx and logs', async () => {
    const root = await gitWorkspace();
    const bundle = await createBundle({ root });
    expect(bundle.files.map((f) => f.path)).toEqual(['.gitignore', 'bin/run.sh', 'package.json', 'src/main.js']);
    expect(bundle.files.find((f) => f.path === 'bin/run.sh')?.mode).toBe(0o755);
    expect(bundle.files.find((f) => f.path === 'src/main.js')?.mode).toBe(0o644);
  });

  it('changes the id when only the executable bit changes', async () => {
    const root = await gitWorkspace();
    const before = await createBundle({ root });
    await chmod(join(root, 'src/main.js'), 0o755);
    expect((await createBundle({ root })).id).not.toBe(before.id);
  });

  it('walks a directory outside git with the same exclusions plus dot-directories', async () => {
    const root = join(dir, 'plain');
    await write(root, 'a.txt', 'a');
    await write(root, '.hidden/secret', 's');
    await write(root, 'node_modules/x/y.js', 'y');
    await write(root, 'sub/run.log', 'l');
    await write(root, 'sub/b.txt', 'b');
    const bundle = await createBundle({ root });
    expect(bundle.files.map((f) => f.path)).toEqual(['a.txt', 'sub/b.txt']);
  });

  it('refuses an oversize workspace listing the largest files, writing nothing', async () => {
    const root = join(dir, 'big');
    await write(root, 'small.txt', 'x');
    await write(root, 'huge.bin', 'y'.repeat(5000));
    await write(root, 'medium.bin', 'z'.repeat(2000));
    const err = await createBundle({ root, maxBytes: 4000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'IRIS_INVALID_ARGUMENT', details: { totalBytes: 7001, maxBytes: 4000 } });
    expect((err as { details: { largest: { path: string }[] } }).details.largest.map((f) => f.path)).toEqual([
      'huge.bin',
      'medium.bin',
      'small.txt',
    ]);
  });

  it('rejects malformed options with IRIS_INVALID_ARGUMENT', async () => {
    await expect(createBundle({ root: '' })).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
  });

  it('produces an archive whose content hashes back to the id', async () => {
    const root = await gitWorkspace();
    const bundle = await createBundle({ root });
    const files = await readBundleArchive(bundle.archive);
    expect(bundleIdOf(files)).toBe(bundle.id);
    await expect(verifyBundleArchive(bundle.archive, 'f'.repeat(64))).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    await expect(verifyBundleArchive(Buffer.from('not a tarball'), bundle.id)).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
  });
});

describe('BundleCache', () => {
  it('fetches a bundle once, verifies and extracts it, and serves later acquires from the cache', async () => {
    const root = await gitWorkspace();
    const bundle = await createBundle({ root });
    let fetches = 0;
    const cache = new BundleCache({
      dir: join(dir, 'cache'),
      fetch: async () => {
        fetches += 1;
        return bundle.archive;
      },
    });
    const [a, b] = await Promise.all([cache.acquire(bundle.id), cache.acquire(bundle.id)]);
    const c = await cache.acquire(bundle.id);
    expect(fetches).toBe(1);
    expect(c.hit).toBe(true);
    expect(a.path).toBe(c.path);
    expect(await readFile(join(c.path, 'src/main.js'), 'utf8')).toBe('console.log("hi")\n');
    expect((await stat(join(c.path, 'bin/run.sh'))).mode & 0o111).not.toBe(0);
    for (const lease of [a, b, c]) await lease.release();
    // A second cache over the same directory (a restarted daemon) finds the tree on disk.
    const again = new BundleCache({ dir: join(dir, 'cache'), fetch: async () => Promise.reject(new Error('must not fetch')) });
    expect((await again.acquire(bundle.id)).hit).toBe(true);
  });

  it('refuses an archive that does not match the requested id and caches nothing', async () => {
    const root = await gitWorkspace();
    const bundle = await createBundle({ root });
    const cache = new BundleCache({ dir: join(dir, 'cache'), fetch: async () => bundle.archive });
    const wrongId = 'a'.repeat(64);
    await expect(cache.acquire(wrongId)).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    await expect(stat(join(dir, 'cache', wrongId))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(cache.acquire('not-an-id')).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
  });

  it('stops a decompression bomb at its inflated-bytes cap while extracting, leaving no tree behind', async () => {
    const bomb = zeroBombTarGz('big', 1024 * 1024 * 1024);
    const id = 'b'.repeat(64); // refused long before any id could be checked
    const cache = new BundleCache({ dir: join(dir, 'cache'), fetch: async () => bomb, limits: { maxInflatedBytes: 8 * 1024 * 1024 } });
    await expect(cache.acquire(id)).rejects.toMatchObject({ code: 'IRIS_BUNDLE_TOO_LARGE', details: { limit: 'inflated-bytes' } });
    expect(await readdir(join(dir, 'cache'))).toEqual([]);
  });

  it('extracts setuid/setgid files with the plain mode the id records', async () => {
    const archive = craftedTarGz([{ path: 'bin/tool', body: '#!/bin/sh\n', mode: 0o6755 }]);
    const id = bundleIdOf([bundleFileOf('bin/tool', Buffer.from('#!/bin/sh\n'), 0o755)]);
    const cache = new BundleCache({ dir: join(dir, 'cache'), fetch: async () => archive });
    const lease = await cache.acquire(id);
    expect((await stat(join(lease.path, 'bin/tool'))).mode & 0o7777).toBe(0o755);
    await lease.release();
  });

  it('evicts the least recently used tree beyond its size, never one in use', async () => {
    const archives = new Map<string, Buffer>();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const root = join(dir, `ws${i}`);
      await write(root, 'f.txt', `content ${i}`);
      const b = await createBundle({ root });
      archives.set(b.id, b.archive);
      ids.push(b.id);
    }
    const cache = new BundleCache({ dir: join(dir, 'cache'), maxEntries: 1, fetch: async (id) => archives.get(id) as Buffer });
    const held = await cache.acquire(ids[0] as string);
    await (await cache.acquire(ids[1] as string)).release();
    // ids[0] is in use, so ids[1] is the one evicted.
    await expect(stat(join(dir, 'cache', ids[0] as string))).resolves.toBeDefined();
    await expect(stat(join(dir, 'cache', ids[1] as string))).rejects.toMatchObject({ code: 'ENOENT' });
    await held.release();
    await (await cache.acquire(ids[2] as string)).release();
    await expect(stat(join(dir, 'cache', ids[0] as string))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(cache.fetchCount).toBe(3);
  });
});
