import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packBundleArchive, readBundleArchive, verifyBundleArchive } from './bundle-archive.js';
import { bundleIdOf, readBundleFiles } from './bundle-manifest.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-bundle-archive-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bundle archives', () => {
  it('verifies an archive of regular files against its id', async () => {
    await writeFile(join(dir, 'a.txt'), 'a');
    const id = bundleIdOf(await readBundleFiles(dir, ['a.txt']));
    await expect(verifyBundleArchive(await packBundleArchive(dir, ['a.txt']), id)).resolves.toHaveLength(1);
  });

  it('refuses an archive with a symlink, which its id would not cover, with IRIS_INVALID_ARGUMENT', async () => {
    await writeFile(join(dir, 'a.txt'), 'a');
    await symlink('/etc/passwd', join(dir, 'link'));
    const archive = await packBundleArchive(dir, ['a.txt', 'link']);
    await expect(readBundleArchive(archive)).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    const idOfFilesOnly = bundleIdOf(await readBundleFiles(dir, ['a.txt']));
    await expect(verifyBundleArchive(archive, idOfFilesOnly)).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
  });

  it('refuses bytes that are not an archive with IRIS_INVALID_ARGUMENT', async () => {
    await expect(readBundleArchive(Buffer.from('not a tarball'))).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
  });
});
