import { mkdir, mkdtemp, readdir, rm, rmdir, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GUARD_STALE_MS, withLocalGuard } from './local-guard.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rigging-guard-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('withLocalGuard()', () => {
  it('runs the section and removes the guard afterwards, even on failure', async () => {
    const lock = join(dir, 'sub', 'x.lock');
    expect(await withLocalGuard(lock, async () => readdir(join(dir, 'sub')))).toEqual(['x.lock.guard']);
    await expect(withLocalGuard(lock, async () => Promise.reject(new Error('inside')))).rejects.toThrow('inside');
    expect(await readdir(join(dir, 'sub'))).toEqual([]);
  });

  it('serialises concurrent sections', async () => {
    const lock = join(dir, 'y.lock');
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        withLocalGuard(lock, async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await new Promise((r) => setTimeout(r, 5));
          inside--;
        }),
      ),
    );
    expect(maxInside).toBe(1);
  });

  it('waits for a held guard and proceeds once it is removed', async () => {
    const lock = join(dir, 'z.lock');
    await mkdir(`${lock}.guard`);
    let entered = false;
    const section = withLocalGuard(lock, async () => {
      entered = true;
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(entered).toBe(false);
    await rmdir(`${lock}.guard`);
    await section;
    expect(entered).toBe(true);
  });

  it('removes a guard abandoned for longer than 10 s', async () => {
    const lock = join(dir, 'old.lock');
    await mkdir(`${lock}.guard`);
    const past = new Date(Date.now() - GUARD_STALE_MS - 5000);
    await utimes(`${lock}.guard`, past, past);
    expect(await withLocalGuard(lock, async () => 'entered')).toBe('entered');
  });
});
