import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyTree, listFilesRecursive } from './copy-tree.js';
import { filesystemFor } from './registry.js';
import { fetchFileAtomic } from './fetch-file-atomic.js';
import { readText, writeText } from './verbs.js';

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'rigging-tree-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('copyTree()', () => {
  it('copies every file, then skips equal-size files on resume and keeps destination-only files', async () => {
    await withDir(async (dir) => {
      const src = join(dir, 'src');
      const dst = join(dir, 'dst');
      await writeText(`${src}/a.txt`, 'aaa');
      await writeText(`${src}/n/b.txt`, 'bb');
      await writeText(`${src}/n/m/c.txt`, 'c');
      expect(await copyTree(src, dst, { mode: 'resume' })).toEqual({ copiedFiles: 3, skippedFiles: 0, copiedBytes: 6, removedTemporary: 0 });
      expect(await readText(`${dst}/n/m/c.txt`)).toBe('c');

      await writeText(`${src}/n/b.txt`, 'bbbb'); // size changed: copied again
      await writeText(`${dst}/only-here.txt`, 'keep');
      expect(await copyTree(src, dst, { mode: 'resume' })).toEqual({ copiedFiles: 1, skippedFiles: 2, copiedBytes: 4, removedTemporary: 0 });
      expect(await readText(`${dst}/n/b.txt`)).toBe('bbbb');
      expect(await readText(`${dst}/only-here.txt`)).toBe('keep');

      expect(await copyTree(src, dst, { mode: 'overwrite' })).toEqual({ copiedFiles: 3, skippedFiles: 0, copiedBytes: 8, removedTemporary: 0 });
      expect((await readdir(dst)).sort()).toEqual(['a.txt', 'n', 'only-here.txt']);
    });
  });

  it('copies across backends', async () => {
    await withDir(async (dir) => {
      await writeText(`${dir}/t/x.bin`, 'xyz');
      await writeText(`${dir}/t/y/z.bin`, 'z');
      expect(await copyTree(`${dir}/t`, 'memory://tree-dst/out')).toEqual({ copiedFiles: 2, skippedFiles: 0, copiedBytes: 4, removedTemporary: 0 });
      expect(await readText('memory://tree-dst/out/y/z.bin')).toBe('z');
      expect(await copyTree('memory://tree-dst/out', `file://${dir}/back`)).toMatchObject({ copiedFiles: 2 });
      expect(await readText(`${dir}/back/x.bin`)).toBe('xyz');
    });
  });

  it.each(['local', 'memory'])('removes the staging files an interrupted copy left (%s) and never lists staging names', async (kind) => {
    await withDir(async (dir) => {
      const src = join(dir, 'src');
      const dst = kind === 'local' ? join(dir, 'dst') : `memory://tree-temps-${Date.now()}/dst`;
      for (let i = 0; i < 6; i++) await writeText(`${src}/d${i % 2}/f${i}.bin`, `file ${i}`);
      await writeText(`${dst}/d0/f0.bin`, 'file 0');
      // What a copy killed between staging and rename leaves: staged copies of files it was copying.
      const stale = ['d0/f2.bin', 'd1/f3.bin', 'd1/f5.bin'].map((rel) => `${dst}/${rel}.tmp.${'ab'.repeat(16)}`);
      for (const t of stale) await writeText(t, 'partial');
      const foreign = `${dst}/other.bin.tmp.${'cd'.repeat(16)}`;
      await writeText(foreign, 'someone else is writing this');
      const fs = filesystemFor(dst);
      expect((await fs.ls(`${dst}/d1`)).map((e) => e.url)).toEqual([]);
      expect(await fs.glob(`${dst}/**`)).toEqual([`${dst}/d0`, `${dst}/d0/f0.bin`, `${dst}/d1`]);

      expect(await copyTree(src, dst)).toEqual({ copiedFiles: 5, skippedFiles: 1, copiedBytes: 30, removedTemporary: 3 });
      const raw = (await listFilesRecursive(fs, dst, { includeTemporary: true })).map((f) => f.rel);
      expect(raw).toEqual(['d0/f0.bin', 'd0/f2.bin', 'd0/f4.bin', 'd1/f1.bin', 'd1/f3.bin', 'd1/f5.bin', `other.bin.tmp.${'cd'.repeat(16)}`]);
      expect((await listFilesRecursive(fs, dst)).map((f) => f.rel)).not.toContain(`other.bin.tmp.${'cd'.repeat(16)}`);
      expect(await readText(foreign)).toBe('someone else is writing this');
    });
  });

  it('rejects a destination equal to or inside the source', async () => {
    await expect(copyTree('/data/src', '/data/src')).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
    await expect(copyTree('/data/src', 'file:///data/src/inner')).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
    await expect(copyTree('gs://b/src', 'gs://b/src/x')).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
  });

  it('fails with RIGGING_NOT_FOUND for a missing source', async () => {
    await expect(copyTree('memory://no-such-tree', 'memory://dst-tree')).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND' });
  });
});

describe('fetchFileAtomic()', () => {
  it('writes the file and returns true, or returns false for a missing source', async () => {
    await withDir(async (dir) => {
      await writeText('memory://fetch/src.txt', 'fetched');
      expect(await fetchFileAtomic('memory://fetch/src.txt', join(dir, 'sub/out.txt'))).toBe(true);
      expect(await readText(join(dir, 'sub/out.txt'))).toBe('fetched');
      expect(await fetchFileAtomic('memory://fetch/missing.txt', join(dir, 'none.txt'))).toBe(false);
      await expect(stat(join(dir, 'none.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await readdir(join(dir, 'sub'))).toEqual(['out.txt']);
    });
  });
});
