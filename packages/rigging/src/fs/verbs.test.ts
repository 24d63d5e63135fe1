import { mkdtemp, rm as rmDir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copy, exists, expandGlob, glob, ls, readText, rename, stat, writeText } from './verbs.js';
import { filesystemFor } from './registry.js';

describe('module verbs', () => {
  it('dispatch by scheme and copy across backends', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rigging-verbs-'));
    try {
      await writeText('memory://verbs/a.txt', 'A');
      await copy('memory://verbs/a.txt', `${dir}/from-mem.txt`);
      expect(await readText(`file://${dir}/from-mem.txt`)).toBe('A');
      await rename(`${dir}/from-mem.txt`, 'memory://verbs/back.txt');
      expect(await exists(`${dir}/from-mem.txt`)).toBe(false);
      expect((await stat('memory://verbs/back.txt')).size).toBe(1);
      expect((await ls('memory://verbs')).map((i) => i.url)).toEqual(['memory://verbs/a.txt', 'memory://verbs/back.txt']);
      expect(await glob('memory://verbs/*.txt')).toHaveLength(2);
    } finally {
      await rmDir(dir, { recursive: true, force: true });
    }
  });

  it('throws RIGGING_UNSUPPORTED naming an unknown scheme', async () => {
    expect(() => filesystemFor('ftp://host/x')).toThrow(
      expect.objectContaining({ code: 'RIGGING_UNSUPPORTED', details: expect.objectContaining({ scheme: 'ftp' }) }),
    );
    await expect(async () => readText('nope://x')).rejects.toMatchObject({ code: 'RIGGING_UNSUPPORTED' });
  });

  it('expandGlob keeps missing literals and globs wildcard members', async () => {
    await writeText('memory://eg/a1.txt', '1');
    await writeText('memory://eg/a2.txt', '2');
    expect(await expandGlob(['memory://eg/a*.txt', 'memory://eg/{missing,a1}.txt'])).toEqual([
      'memory://eg/a1.txt',
      'memory://eg/a2.txt',
      'memory://eg/missing.txt',
    ]);
  });
});
