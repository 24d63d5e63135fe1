import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLease } from '../../src/locks/distributed-lease.js';
import { raceForLease } from '../helpers/race-processes.js';

describe('local lease across processes', () => {
  it('lets exactly one of several racing processes win', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rigging-race-'));
    try {
      const url = join(dir, 'step', '.executor_status.lock');
      const results = await raceForLease(url, 6);
      const winners = results.filter((r) => r.won);
      expect(winners).toHaveLength(1);
      const lease = parseLease(await readFile(url));
      expect(lease?.workerId).toBe(winners[0]?.workerId);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
