import { mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RiggingError } from '../errors.js';
import { ExponentialBackoff } from '../retry/exponential-backoff.js';
import { atomicRename, atomicWrite } from './atomic-rename.js';
import type { Filesystem } from './filesystem.js';
import { createMemoryFilesystem } from './memory-filesystem.js';
import { registerFilesystem } from './registry.js';
import { uniqueTempPath } from './temp-path.js';

/** A memory-backed scheme whose renames fail with `error` the first `failures` times. */
function flakyScheme(scheme: string, failures: number, error: () => Error): { renames: () => number } {
  const mem = createMemoryFilesystem();
  const toMem = (u: string) => u.replace(`${scheme}://`, `memory://${scheme}/`);
  let renames = 0;
  const fs: Filesystem = {
    exists: (u) => mem.exists(toMem(u)),
    stat: (u) => mem.stat(toMem(u)),
    size: (u) => mem.size(toMem(u)),
    ls: (u) => mem.ls(toMem(u)),
    glob: (p) => mem.glob(toMem(p)),
    createReadStream: (u, r) => mem.createReadStream(toMem(u), r),
    createWriteStream: (u) => mem.createWriteStream(toMem(u)),
    readBytes: (u) => mem.readBytes(toMem(u)),
    readText: (u) => mem.readText(toMem(u)),
    writeBytes: (u, d) => mem.writeBytes(toMem(u), d),
    writeText: (u, t) => mem.writeText(toMem(u), t),
    mkdirs: (u) => mem.mkdirs(toMem(u)),
    rm: (u, o) => mem.rm(toMem(u), o),
    copy: (s, d) => mem.copy(toMem(s), toMem(d)),
    rename: async (s, d) => {
      renames++;
      if (renames <= failures) throw error();
      await mem.rename(toMem(s), toMem(d));
    },
  };
  registerFilesystem(scheme, () => fs);
  return { renames: () => renames };
}

const quick = () => new ExponentialBackoff({ initialMs: 1, maximumMs: 2, jitter: 0 });

describe('uniqueTempPath()', () => {
  it('appends .tmp. and 32 hex characters', () => {
    expect(uniqueTempPath('gs://b/out')).toMatch(/^gs:\/\/b\/out\.tmp\.[0-9a-f]{32}$/);
    expect(uniqueTempPath('/x')).not.toBe(uniqueTempPath('/x'));
  });
});

describe('atomicRename()', () => {
  it('moves a temp directory into place and returns the callback result', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rigging-atomic-'));
    try {
      const out = join(dir, 'out');
      const result = await atomicRename(out, async (tmp) => {
        await mkdir(tmp);
        await writeFile(join(tmp, 'a.txt'), 'a');
        return 42;
      });
      expect(result).toBe(42);
      expect(await readdir(dir)).toEqual(['out']);
      expect(await readdir(out)).toEqual(['a.txt']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('removes the temp path and rethrows the original error on failure', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rigging-atomic-'));
    try {
      const boom = new Error('write failed');
      await expect(
        atomicRename(join(dir, 'out'), async (tmp) => {
          await writeFile(tmp, 'partial');
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('retries a transient rename failure up to 4 attempts', async () => {
    const flaky = flakyScheme('flakyok', 3, () => new RiggingError('RIGGING_UNAVAILABLE', 'busy'));
    await atomicRename('flakyok://out.txt', (tmp) => createMemoryFilesystem().writeText(tmp.replace('flakyok://', 'memory://flakyok/'), 'x'), {
      backoff: quick(),
      log: () => undefined,
    });
    expect(flaky.renames()).toBe(4);
    expect(await createMemoryFilesystem().readText('memory://flakyok/out.txt')).toBe('x');
  });

  it('gives up after 4 transient failures and leaves no temp object', async () => {
    const flaky = flakyScheme('flakybad', 10, () => new RiggingError('RIGGING_UNAVAILABLE', 'busy'));
    await expect(
      atomicRename('flakybad://out.txt', (tmp) => createMemoryFilesystem().writeText(tmp.replace('flakybad://', 'memory://flakybad/'), 'x'), {
        backoff: quick(),
        log: () => undefined,
      }),
    ).rejects.toMatchObject({ code: 'RIGGING_UNAVAILABLE' });
    expect(flaky.renames()).toBe(4);
    expect(await createMemoryFilesystem().glob('memory://flakybad/*')).toEqual([]);
  });

  it('does not retry a non-transient rename failure', async () => {
    const flaky = flakyScheme('flakyperm', 10, () => new RiggingError('RIGGING_PERMISSION_DENIED', 'no'));
    await expect(
      atomicRename('flakyperm://out.txt', (tmp) => createMemoryFilesystem().writeText(tmp.replace('flakyperm://', 'memory://flakyperm/'), 'x'), {
        backoff: quick(),
        log: () => undefined,
      }),
    ).rejects.toMatchObject({ code: 'RIGGING_PERMISSION_DENIED' });
    expect(flaky.renames()).toBe(1);
  });
});

describe('atomicWrite()', () => {
  it('writes bytes or text through a temp sibling', async () => {
    await atomicWrite('memory://aw/x.txt', 'hello');
    await atomicWrite('memory://aw/y.bin', Buffer.from([1, 2]));
    expect(await createMemoryFilesystem().glob('memory://aw/*')).toEqual(['memory://aw/x.txt', 'memory://aw/y.bin']);
  });
});
