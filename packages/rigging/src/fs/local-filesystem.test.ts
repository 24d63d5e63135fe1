import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesystemContract } from '../../test/contracts/filesystem.contract.js';
import { createLocalFilesystem } from './local-filesystem.js';
import { filesystemFor } from './registry.js';

async function tempDir(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await mkdtemp(join(tmpdir(), 'rigging-local-'));
  return { dir, [Symbol.asyncDispose]: () => rm(dir, { recursive: true, force: true }) };
}

filesystemContract('local', async () => {
  const t = await tempDir();
  return { fs: createLocalFilesystem(), root: t.dir, [Symbol.asyncDispose]: () => t[Symbol.asyncDispose]() };
});

filesystemContract('file://', async () => {
  const t = await tempDir();
  return { fs: createLocalFilesystem(), root: `file://${t.dir}`, [Symbol.asyncDispose]: () => t[Symbol.asyncDispose]() };
});

describe('local filesystem', () => {
  it('is what filesystemFor returns for bare paths and file:// URLs', () => {
    expect(filesystemFor('/tmp/x')).toBe(filesystemFor('file:///tmp/x'));
  });

  it('leaves no temp siblings after writes, and creates parent directories', async () => {
    await using t = await tempDir();
    const fs = createLocalFilesystem();
    await fs.writeText(join(t.dir, 'a/b/c.txt'), 'x');
    await fs.copy(join(t.dir, 'a/b/c.txt'), join(t.dir, 'd/e.txt'));
    expect(await readdir(join(t.dir, 'a/b'))).toEqual(['c.txt']);
    expect(await readdir(join(t.dir, 'd'))).toEqual(['e.txt']);
  });

  it('reports version null and a modification time', async () => {
    await using t = await tempDir();
    const fs = createLocalFilesystem();
    await fs.writeText(join(t.dir, 'v.txt'), 'x');
    const info = await fs.stat(join(t.dir, 'v.txt'));
    expect(info.version).toBeNull();
    expect(typeof info.mtimeMs).toBe('number');
  });
});
