import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { filesystemFor } from '../../src/fs/registry.js';
import { createNamedBucket, gcsEndpoint } from '../helpers/gcs-buckets.js';
import { raceMirrorReads } from '../helpers/race-processes.js';

describe('mirror:// across processes', () => {
  it('copies a remote file exactly once when several processes read it at once', async () => {
    await createNamedBucket('marin-us-central1');
    await createNamedBucket('marin-us-east1');
    const run = randomUUID().slice(0, 8);
    const body = Buffer.alloc(512 * 1024, 9);
    await filesystemFor('gs://marin-us-east1').writeBytes(`gs://marin-us-east1/${run}/data/shard.bin`, body);
    const results = await raceMirrorReads(
      { localPrefix: `gs://marin-us-central1/${run}`, remotePrefix: `gs://marin-us-east1/${run}`, rel: 'data/shard.bin', count: 4 },
      { STORAGE_EMULATOR_HOST: gcsEndpoint() },
    );
    expect(results.every((r) => r.bytes === body.length)).toBe(true);
    expect(results.reduce((sum, r) => sum + r.bytesCopied, 0)).toBe(body.length);
    expect(await filesystemFor('gs://x').glob(`gs://marin-us-central1/${run}/data/*`)).toEqual([`gs://marin-us-central1/${run}/data/shard.bin`]);
  });
});
