import { describe, expect, it } from 'vitest';
import { filesystemFor } from '../../src/fs/registry.js';
import { parseLease } from '../../src/locks/distributed-lease.js';
import { createTestBucket, gcsEndpoint } from '../helpers/gcs-buckets.js';
import { raceForLease } from '../helpers/race-processes.js';

describe('gs:// lease across processes', () => {
  it('lets exactly one of 10 racing processes win', async () => {
    const bucket = await createTestBucket('race');
    const url = `gs://${bucket}/step/.executor_status.lock`;
    const results = await raceForLease(url, 10, { STORAGE_EMULATOR_HOST: gcsEndpoint() });
    const winners = results.filter((r) => r.won);
    expect(winners).toHaveLength(1);
    const lease = parseLease(await filesystemFor(url).readBytes(url));
    expect(lease?.workerId).toBe(winners[0]?.workerId);
  });
});
