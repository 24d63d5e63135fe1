import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { craftedTarGz, zeroBombTarGz } from '../../../test/helpers/crafted-tar.js';
import { bundleIdOf, bundleFileOf } from '../../bundle/bundle-manifest.js';
import { BundleStore } from './bundle-store.js';
import { openControllerDatabase } from './database.js';
import type { ControllerDatabase } from './database.js';

const MIB = 1024 * 1024;
let dir: string;
let db: ControllerDatabase;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-bundle-store-'));
  db = openControllerDatabase(':memory:');
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('BundleStore uploads', () => {
  it('refuses a bomb before its upload has ended, having inflated no more than the cap', async () => {
    const store = new BundleStore(db, join(dir, 'bundles'), { maxInflatedBytes: 4 * MIB });
    const bomb = zeroBombTarGz('big', 2048 * MIB); // ~2 MiB compressed, 2 GiB inflated
    const upload = store.startUpload(bundleIdOf([bundleFileOf('big', Buffer.alloc(0), 0o644)]));
    // Every chunk but the end of the stream: the refusal must not wait for it.
    for (let off = 0; off < bomb.length; off += 64 * 1024) upload.write(bomb.subarray(off, off + 64 * 1024));
    const refusal = await upload.refused.catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: 'IRIS_BUNDLE_TOO_LARGE', details: { limit: 'inflated-bytes', maxInflatedBytes: 4 * MIB } });
    expect((refusal as { details: { inflatedBytes: number } }).details.inflatedBytes).toBeLessThan(5 * MIB);
    upload.abort();
    await expect(upload.finish(0)).rejects.toMatchObject({ code: 'IRIS_BUNDLE_TOO_LARGE' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('stores an archive that verifies against its id', async () => {
    const store = new BundleStore(db, join(dir, 'bundles'));
    const id = bundleIdOf([bundleFileOf('a', Buffer.from('a'), 0o644)]);
    const upload = store.startUpload(id);
    upload.write(craftedTarGz([{ path: 'a', body: 'a' }]));
    await upload.finish(1);
    expect(store.has(id)).toBe(true);
  });

  it('refuses a malformed id with IRIS_INVALID_ARGUMENT, before touching the disk', () => {
    const store = new BundleStore(db, join(dir, 'bundles'));
    expect(() => store.startUpload('../../x')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(() => store.has('xyz')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});
