import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeGcs } from '../../src/testing/fake-gcs.js';

const KEY = 'STORAGE_EMULATOR_HOST';
// The global setup points this worker at its own emulator; each test puts that back.
const fromSetup = process.env[KEY];

afterEach(() => {
  if (fromSetup === undefined) delete process.env[KEY];
  else process.env[KEY] = fromSetup;
});

async function bucketStatus(endpoint: string, name: string): Promise<number> {
  const res = await fetch(`${endpoint}/storage/v1/b/${name}`);
  await res.body?.cancel();
  return res.status;
}

describe('startFakeGcs({ setEnv })', () => {
  it('points STORAGE_EMULATOR_HOST at the emulator while open and restores the previous value on close', async () => {
    process.env[KEY] = 'http://127.0.0.1:1';
    const gcs = await startFakeGcs({ setEnv: true });
    expect(process.env[KEY]).toBe(gcs.endpoint);
    expect(gcs.endpoint).not.toBe('http://127.0.0.1:1');
    await gcs.close();
    expect(process.env[KEY]).toBe('http://127.0.0.1:1');
    // A second close neither fails nor restores again.
    process.env[KEY] = 'http://127.0.0.1:2';
    await gcs.close();
    expect(process.env[KEY]).toBe('http://127.0.0.1:2');
  });

  it('deletes STORAGE_EMULATOR_HOST on dispose when it was unset before', async () => {
    delete process.env[KEY];
    {
      await using gcs = await startFakeGcs({ setEnv: true });
      expect(process.env[KEY]).toBe(gcs.endpoint);
    }
    expect(Object.hasOwn(process.env, KEY)).toBe(false);
  });

  it('leaves the environment alone without setEnv', async () => {
    process.env[KEY] = 'http://127.0.0.1:1';
    {
      await using _gcs = await startFakeGcs();
      expect(process.env[KEY]).toBe('http://127.0.0.1:1');
    }
    expect(process.env[KEY]).toBe('http://127.0.0.1:1');
  });
});

describe('FakeGcsHandle.createUniqueBucket()', () => {
  it('creates a bucket named <prefix>-<8 hex> on the emulator, a different one on each call', async () => {
    await using gcs = await startFakeGcs();
    const first = await gcs.createUniqueBucket('rigging-unique');
    const second = await gcs.createUniqueBucket('rigging-unique');
    expect(first).toMatch(/^rigging-unique-[0-9a-f]{8}$/);
    expect(second).toMatch(/^rigging-unique-[0-9a-f]{8}$/);
    expect(second).not.toBe(first);
    expect(await bucketStatus(gcs.endpoint, first)).toBe(200);
    expect(await bucketStatus(gcs.endpoint, second)).toBe(200);
    expect(await bucketStatus(gcs.endpoint, 'rigging-unique-missing')).toBe(404);
  });
});

describe('startFakeGcs({ storageDir })', () => {
  it('keeps objects as files under the directory, so a second emulator on the same directory serves them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fake-gcs-fs-'));
    try {
      {
        await using gcs = await startFakeGcs({ storageDir: join(dir, 'store') });
        await gcs.createBucket('rigging-fs');
        const res = await fetch(`${gcs.endpoint}/upload/storage/v1/b/rigging-fs/o?uploadType=media&name=a.txt`, { method: 'POST', body: 'on disk' });
        expect(res.status).toBe(200);
        await res.body?.cancel();
      }
      expect(await readdir(join(dir, 'store'))).toContain('rigging-fs');
      await using again = await startFakeGcs({ storageDir: join(dir, 'store') });
      const res = await fetch(`${again.endpoint}/storage/v1/b/rigging-fs/o/a.txt?alt=media`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('on disk');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
