import { describe, expect, it } from 'vitest';
import { createGcsClient } from '../../src/fs/gcs-client.js';
import { createGcsFilesystem } from '../../src/fs/gcs-filesystem.js';
import { filesystemFor } from '../../src/fs/registry.js';
import { filesystemContract } from '../contracts/filesystem.contract.js';
import { leaseContract } from '../contracts/lease.contract.js';
import { createTestBucket, gcsEndpoint } from '../helpers/gcs-buckets.js';

filesystemContract('gcs emulator', async () => {
  const bucket = await createTestBucket();
  return { fs: filesystemFor(`gs://${bucket}`), root: `gs://${bucket}/root`, [Symbol.asyncDispose]: async () => undefined };
});

leaseContract('gcs emulator', async () => {
  const bucket = await createTestBucket();
  return { root: `gs://${bucket}/leases`, [Symbol.asyncDispose]: async () => undefined };
});

describe('gcs filesystem', () => {
  it('reports the generation as version and accepts the gcs:// alias', async () => {
    const bucket = await createTestBucket();
    const fs = filesystemFor(`gs://${bucket}`);
    await fs.writeText(`gs://${bucket}/v.txt`, 'one');
    const v1 = (await fs.stat(`gs://${bucket}/v.txt`)).version;
    await fs.writeText(`gs://${bucket}/v.txt`, 'two');
    const v2 = (await fs.stat(`gcs://${bucket}/v.txt`)).version;
    expect(v1).toMatch(/^\d+$/);
    expect(v2).not.toBe(v1);
    expect(await filesystemFor(`gcs://${bucket}/v.txt`).readText(`gcs://${bucket}/v.txt`)).toBe('two');
  });

  it('treats placeholder objects ending in / as directories', async () => {
    const bucket = await createTestBucket();
    const fs = filesystemFor(`gs://${bucket}`);
    await fs.writeText(`gs://${bucket}/dir/`, '');
    expect(await fs.stat(`gs://${bucket}/dir`)).toMatchObject({ type: 'directory' });
    expect((await fs.ls(`gs://${bucket}`)).map((e) => [e.url, e.type])).toEqual([[`gs://${bucket}/dir`, 'directory']]);
  });

  it('works with an explicit client', async () => {
    const bucket = await createTestBucket();
    const fs = createGcsFilesystem({ client: createGcsClient({ endpoint: gcsEndpoint() }) });
    await fs.writeText(`gs://${bucket}/x`, 'x');
    expect(await fs.readText(`gs://${bucket}/x`)).toBe('x');
  });

  it('maps a missing bucket to RIGGING_NOT_FOUND', async () => {
    await expect(filesystemFor('gs://no-such-bucket-xyz/a').readText('gs://no-such-bucket-xyz/a')).rejects.toMatchObject({
      code: 'RIGGING_NOT_FOUND',
    });
  });
});

describe('gcs write streams', () => {
  it('reports a missing bucket on a streamed write as RIGGING_NOT_FOUND', async () => {
    const { pipeline } = await import('node:stream/promises');
    const { Readable } = await import('node:stream');
    const url = 'gs://no-such-bucket-for-streams/x.bin';
    const w = await filesystemFor(url).createWriteStream(url);
    await expect(pipeline(Readable.from([Buffer.alloc(1000, 1)]), w)).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND' });
  });
});
