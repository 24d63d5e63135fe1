import { describe, expect, it } from 'vitest';
import { mirrorBudget } from '../../src/budget/mirror-budget.js';
import { TransferBudget } from '../../src/budget/transfer-budget.js';
import { filesystemFor } from '../../src/fs/registry.js';
import { prefixJoin } from '../../src/fs/storage-path.js';
import { createLease } from '../../src/locks/distributed-lease.js';
import { createMirrorFilesystem } from '../../src/mirror/mirror-filesystem.js';
import type { MirrorFilesystemOptions } from '../../src/mirror/mirror-filesystem.js';

/** A local prefix and two "regional" remotes, all empty. */
export interface MirrorFixture extends AsyncDisposable {
  local: string;
  remotes: readonly [string, string];
}

async function put(prefix: string, rel: string, text: string): Promise<void> {
  const url = prefixJoin(prefix, rel);
  await filesystemFor(url).writeText(url, text);
}

/** The `mirror://` behaviours (`src/mirror/DESIGN.md`), run over any three prefixes. */
export function mirrorContract(name: string, open: () => Promise<MirrorFixture>): void {
  describe(`MirrorFilesystem (${name})`, () => {
    const build = (f: MirrorFixture, extra: Partial<MirrorFilesystemOptions> = {}) => {
      const lines: string[] = [];
      const fs = createMirrorFilesystem({
        localPrefix: f.local,
        remotePrefixes: f.remotes,
        budget: new TransferBudget(1024 ** 3),
        lockWait: { attempts: 1200, intervalMs: 50 },
        log: (l) => lines.push(l),
        ...extra,
      });
      return { fs, lines };
    };

    it('serves a local file without copying or charging', async () => {
      await using f = await open();
      await put(f.local, 'data/a.txt', 'local');
      await put(f.remotes[0], 'data/a.txt', 'remote');
      const { fs } = build(f);
      const used = await mirrorBudget(1, async () => {
        expect(await fs.readText('mirror://data/a.txt')).toBe('local');
        return 0;
      });
      expect(used).toBe(0);
      expect(fs.bytesCopied).toBe(0);
    });

    it('copies a remote-only file on first read, charges it, and reads locally afterwards', async () => {
      await using f = await open();
      await put(f.remotes[0], 'data/b.txt', 'remote-b');
      const { fs, lines } = build(f);
      const budgetUsed = await mirrorBudget(1, async () => {
        expect(await fs.readText('mirror://data/b.txt')).toBe('remote-b');
        expect(fs.bytesCopied).toBe(8);
        expect(await fs.readText('mirror://data/b.txt')).toBe('remote-b');
        return (await import('../../src/budget/mirror-budget.js')).currentMirrorBudget()?.bytesUsed;
      });
      expect(budgetUsed).toBe(8);
      expect(fs.bytesCopied).toBe(8);
      expect(lines.filter((l) => l.startsWith('Mirror: copying'))).toHaveLength(1);
      expect(await filesystemFor(f.local).readText(prefixJoin(f.local, 'data/b.txt'))).toBe('remote-b');
      expect(await fs.resolveUrl('mirror://data/b.txt')).toBe(prefixJoin(f.local, 'data/b.txt'));
    });

    it('takes a file present in both remotes from the first in config order', async () => {
      await using f = await open();
      await put(f.remotes[0], 'c.txt', 'first');
      await put(f.remotes[1], 'c.txt', 'second');
      await put(f.remotes[1], 'd.txt', 'only-second');
      const { fs } = build(f);
      expect(await fs.readText('mirror://c.txt')).toBe('first');
      expect(await fs.readText('mirror://d.txt')).toBe('only-second');
    });

    it('throws RIGGING_NOT_FOUND for a file in no bucket', async () => {
      await using f = await open();
      const { fs } = build(f);
      await expect(fs.readText('mirror://missing.txt')).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND', details: { path: 'mirror://missing.txt' } });
      expect(await fs.exists('mirror://missing.txt')).toBe(false);
    });

    it('refuses a copy above the active budget and leaves nothing local; charges accumulate', async () => {
      await using f = await open();
      await put(f.remotes[0], 'big/one.bin', 'x'.repeat(600));
      await put(f.remotes[0], 'big/two.bin', 'y'.repeat(600));
      const { fs } = build(f);
      const limitGb = 1000 / 1024 ** 3;
      await mirrorBudget(limitGb, async () => {
        await fs.readBytes('mirror://big/one.bin');
        let caught: unknown;
        try {
          await fs.readBytes('mirror://big/two.bin');
        } catch (e) {
          caught = e;
        }
        expect(caught).toMatchObject({
          code: 'RIGGING_BUDGET_EXCEEDED',
          details: { bytesUsed: 600, attempted: 600, limit: 1000, path: prefixJoin(f.remotes[0], 'big/two.bin') },
        });
      });
      const localFs = filesystemFor(f.local);
      expect(await localFs.exists(prefixJoin(f.local, 'big/two.bin'))).toBe(false);
      expect((await localFs.glob(prefixJoin(f.local, 'big/*'))).map((u) => u.slice(-7))).toEqual(['one.bin']);
      expect(fs.bytesCopied).toBe(600);
    });

    it('charges the instance budget outside any mirrorBudget scope', async () => {
      await using f = await open();
      await put(f.remotes[0], 'inst.txt', '12345');
      const budget = new TransferBudget(4);
      const { fs } = build(f, { budget });
      await expect(fs.readText('mirror://inst.txt')).rejects.toMatchObject({ code: 'RIGGING_BUDGET_EXCEEDED' });
      budget.reset(5);
      expect(await fs.readText('mirror://inst.txt')).toBe('12345');
      expect(budget.bytesUsed).toBe(5);
    });

    it('lists and globs the union with local precedence; exists never copies', async () => {
      await using f = await open();
      await put(f.local, 'u/a.txt', 'L');
      await put(f.remotes[0], 'u/a.txt', 'R0');
      await put(f.remotes[0], 'u/b.txt', 'R0');
      await put(f.remotes[1], 'u/c/d.txt', 'R1');
      const { fs } = build(f);
      const listed = await fs.ls('mirror://u');
      expect(listed.map((e) => [e.url, e.type])).toEqual([
        ['mirror://u/a.txt', 'file'],
        ['mirror://u/b.txt', 'file'],
        ['mirror://u/c', 'directory'],
      ]);
      expect(listed[0]?.size).toBe(1);
      expect(await fs.glob('mirror://u/**/*.txt')).toEqual(['mirror://u/a.txt', 'mirror://u/b.txt', 'mirror://u/c/d.txt']);
      expect(await fs.exists('mirror://u/c/d.txt')).toBe(true);
      expect(fs.bytesCopied).toBe(0);
      await expect(fs.ls('mirror://nothing-here')).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND' });
    });

    it('writes only under the local prefix', async () => {
      await using f = await open();
      const { fs } = build(f);
      await fs.writeText('mirror://w/out.txt', 'written');
      expect(await filesystemFor(f.local).readText(prefixJoin(f.local, 'w/out.txt'))).toBe('written');
      for (const r of f.remotes) expect(await filesystemFor(r).exists(prefixJoin(r, 'w/out.txt'))).toBe(false);
      await fs.rm('mirror://w/out.txt');
      expect(await fs.exists('mirror://w/out.txt')).toBe(false);
    });

    it('mirrors a directory by globbing <rel>/** and stat-ing each file inside mirrorBudget', async () => {
      await using f = await open();
      await put(f.remotes[0], 'tree/a.txt', 'aa');
      await put(f.remotes[1], 'tree/sub/b.txt', 'bbb');
      const { fs } = build(f);
      expect(await fs.stat('mirror://tree/sub')).toMatchObject({ url: 'mirror://tree/sub', type: 'directory' });
      await expect(fs.readText('mirror://tree/sub')).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
      const used = await mirrorBudget(1, async () => {
        const files = await fs.glob('mirror://tree/**');
        for (const u of files) await fs.stat(u);
        return (await import('../../src/budget/mirror-budget.js')).currentMirrorBudget()?.bytesUsed;
      });
      expect(used).toBe(5);
      expect(await filesystemFor(f.local).readText(prefixJoin(f.local, 'tree/sub/b.txt'))).toBe('bbb');
    });

    it('rejects path traversal', async () => {
      await using f = await open();
      const { fs } = build(f);
      await expect(fs.readText('mirror://../x')).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
      await expect(fs.writeText('mirror://a/../../x', 'x')).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
      await expect(fs.glob('mirror://../*')).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
    });

    it('makes 8 concurrent readers of one remote file cause exactly one copy', async () => {
      await using f = await open();
      const body = 'z'.repeat(256 * 1024);
      await put(f.remotes[1], 'shared/file.bin', body);
      const { fs, lines } = build(f);
      const reads = await Promise.all(Array.from({ length: 8 }, () => fs.readText('mirror://shared/file.bin')));
      expect(reads.every((r) => r === body)).toBe(true);
      expect(lines.filter((l) => l.startsWith('Mirror: copying'))).toHaveLength(1);
      expect(fs.bytesCopied).toBe(body.length);
    });

    it('takes over a stale mirror lock', async () => {
      await using f = await open();
      await put(f.remotes[0], 'stale.txt', 'S');
      const lockUrl = prefixJoin(f.local, '.mirror_locks/stale.txt.lock');
      await filesystemFor(lockUrl).writeText(lockUrl, '{"worker_id": "dead-host-1-1", "timestamp": 1000.0}');
      const { fs } = build(f);
      expect(await fs.readText('mirror://stale.txt')).toBe('S');
      expect(await filesystemFor(lockUrl).exists(lockUrl)).toBe(false);
    });

    it('ends in RIGGING_LOCK_TIMEOUT when a fresh lock is held past the wait', async () => {
      await using f = await open();
      await put(f.remotes[0], 'held.txt', 'H');
      const lockUrl = prefixJoin(f.local, '.mirror_locks/held.txt.lock');
      const holder = createLease(lockUrl, { workerId: 'other-copier' });
      expect(await holder.tryAcquire()).toBe(true);
      const { fs } = build(f, { lockWait: { attempts: 3, intervalMs: 20 } });
      await expect(fs.readText('mirror://held.txt')).rejects.toMatchObject({ code: 'RIGGING_LOCK_TIMEOUT' });
      await holder.release();
      expect(await fs.readText('mirror://held.txt')).toBe('H');
    });
  });
}
