import { describe, expect, it } from 'vitest';
import { filesystemContract } from '../../test/contracts/filesystem.contract.js';
import { createMemoryFilesystem, resetMemoryFilesystem } from './memory-filesystem.js';
import { filesystemFor } from './registry.js';

let n = 0;
filesystemContract('memory', async () => ({
  fs: createMemoryFilesystem(),
  root: `memory://contract-${++n}`,
  [Symbol.asyncDispose]: async () => undefined,
}));

describe('memory filesystem', () => {
  it('shares one process-global store between handles and filesystemFor', async () => {
    await createMemoryFilesystem().writeText('memory://shared/a.txt', 'a');
    expect(await filesystemFor('memory://shared/a.txt').readText('memory://shared/a.txt')).toBe('a');
    resetMemoryFilesystem();
    expect(await createMemoryFilesystem().exists('memory://shared/a.txt')).toBe(false);
  });

  it('treats placeholder objects ending in / as directories, never files', async () => {
    const fs = createMemoryFilesystem();
    await fs.writeText('memory://ph/dir/', '');
    await fs.writeText('memory://ph/dir/f.txt', 'f');
    expect(await fs.stat('memory://ph/dir')).toMatchObject({ type: 'directory' });
    expect((await fs.ls('memory://ph')).map((e) => [e.url, e.type])).toEqual([['memory://ph/dir', 'directory']]);
    expect((await fs.ls('memory://ph/dir')).map((e) => e.url)).toEqual(['memory://ph/dir/f.txt']);
  });

  it('bumps the version on every write and refuses stale conditional writes', async () => {
    const fs = createMemoryFilesystem();
    const v1 = await fs.writeConditional('memory://cas/x', Buffer.from('1'), null);
    await expect(fs.writeConditional('memory://cas/x', Buffer.from('2'), null)).rejects.toMatchObject({
      code: 'RIGGING_CONDITIONAL_WRITE_FAILED',
    });
    const v2 = await fs.writeConditional('memory://cas/x', Buffer.from('2'), v1);
    expect(v2).not.toBe(v1);
    expect((await fs.stat('memory://cas/x')).version).toBe(v2);
    await expect(fs.deleteConditional('memory://cas/x', v1)).rejects.toMatchObject({ code: 'RIGGING_CONDITIONAL_WRITE_FAILED' });
    await fs.deleteConditional('memory://cas/x', v2);
    expect(await fs.readVersioned('memory://cas/x')).toBeNull();
  });
});
