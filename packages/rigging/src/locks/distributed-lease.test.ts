import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaseContract } from '../../test/contracts/lease.contract.js';
import { conditionalObject } from './conditional-object.js';
import { createLease, parseLease } from './distributed-lease.js';
import { defaultWorkerId } from './worker-id.js';

leaseContract('local', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rigging-lease-'));
  return { root: dir, [Symbol.asyncDispose]: () => rm(dir, { recursive: true, force: true }) };
});

let n = 0;
leaseContract('memory', async () => ({ root: `memory://lease-${++n}`, [Symbol.asyncDispose]: async () => undefined }));

describe('leases on unsupported schemes', () => {
  it('throws RIGGING_UNSUPPORTED for mirror:// and unknown schemes', () => {
    expect(() => createLease('mirror://x.lock', { workerId: 'a' })).toThrow(expect.objectContaining({ code: 'RIGGING_UNSUPPORTED' }));
    expect(() => conditionalObject('mirror://x')).toThrow(expect.objectContaining({ code: 'RIGGING_UNSUPPORTED' }));
    expect(() => conditionalObject('ftp://h/x')).toThrow(expect.objectContaining({ code: 'RIGGING_UNSUPPORTED' }));
  });
});

describe('local leases', () => {
  it('lets exactly one of many concurrent acquirers win', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rigging-lease-race-'));
    try {
      const leases = Array.from({ length: 12 }, () => createLease(join(dir, 'race.lock'), { workerId: defaultWorkerId() }));
      const won = await Promise.all(leases.map((l) => l.tryAcquire()));
      expect(won.filter(Boolean)).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('leases with absurd timestamps', () => {
  it('treats a timestamp far in the future (1e308) as stale, with a warning, so a waiter can take over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rigging-lease-future-'));
    try {
      const url = join(dir, 'x.lock');
      await writeFile(url, '{"worker_id": "skewed-host-1", "timestamp": 1e+308}');
      const warnings: string[] = [];
      const timings = { heartbeatS: 1, timeoutS: 90, pollS: 1 };
      const lease = createLease(url, { workerId: 'waiter', timings, warn: (m) => void warnings.push(m) });
      expect(await lease.read()).toMatchObject({ lease: { workerId: 'skewed-host-1', timestamp: 1e308 }, fresh: false });
      expect(warnings).toHaveLength(1);
      expect(await lease.tryAcquire()).toBe(true);
      expect((await lease.read())?.lease.workerId).toBe('waiter');

      // A clock a few seconds ahead is ordinary skew: still fresh.
      const soon = Date.now() / 1000 + 30;
      await writeFile(url, `{"worker_id": "other", "timestamp": ${soon}}`);
      expect(await createLease(url, { workerId: 'w2', timings, warn: () => {} }).read()).toMatchObject({ fresh: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('parseLease()', () => {
  it('accepts any JSON object with worker_id and a numeric timestamp', () => {
    expect(parseLease('{"timestamp": 5, "worker_id": "w", "extra": 1}')).toEqual({ workerId: 'w', timestamp: 5 });
    expect(parseLease('{"worker_id": "w"}')).toBeNull();
    expect(parseLease('[1]')).toBeNull();
    expect(parseLease('{')).toBeNull();
  });
});

describe('defaultWorkerId()', () => {
  it('is <hostname>-<pid>-<n>, fresh per call', () => {
    const a = defaultWorkerId();
    const b = defaultWorkerId();
    expect(a).toMatch(new RegExp(`-${process.pid}-\\d+$`));
    expect(a).not.toBe(b);
  });
});
