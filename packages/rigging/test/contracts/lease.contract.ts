import { describe, expect, it } from 'vitest';
import { createLease, formatLease } from '../../src/locks/distributed-lease.js';
import { conditionalObject } from '../../src/locks/conditional-object.js';
import type { LeaseTimings } from '../../src/locks/lease-timings.js';
import { filesystemFor } from '../../src/fs/registry.js';

/** A fresh, empty location where lease files may be created. */
export interface LeaseFixture extends AsyncDisposable {
  /** A URL prefix with nothing below it. */
  root: string;
}

const timings: LeaseTimings = { heartbeatS: 1, timeoutS: 10, pollS: 0.1 };

function manualClock(startMs: number): { now: () => number; advanceS: (s: number) => void } {
  let t = startMs;
  return { now: () => t, advanceS: (s) => (t += s * 1000) };
}

/** Lease and conditional-object behaviours every conditional backend must share. */
export function leaseContract(name: string, open: () => Promise<LeaseFixture>): void {
  describe(`DistributedLease (${name})`, () => {
    it('writes exactly the Python json.dumps bytes', async () => {
      await using f = await open();
      const clock = manualClock(1_732_212_345_250);
      const lease = createLease(`${f.root}/a.lock`, { workerId: 'host-1-1', timings, clock: clock.now });
      expect(await lease.tryAcquire()).toBe(true);
      expect(await filesystemFor(f.root).readText(`${f.root}/a.lock`)).toBe('{"worker_id": "host-1-1", "timestamp": 1732212345.25}');
      clock.advanceS(0.75);
      await lease.refresh();
      expect(await filesystemFor(f.root).readText(`${f.root}/a.lock`)).toBe('{"worker_id": "host-1-1", "timestamp": 1732212346.0}');
    });

    it('acquires, re-enters, refuses another holder while fresh, and takes over once stale', async () => {
      await using f = await open();
      const clock = manualClock(1_700_000_000_000);
      const url = `${f.root}/b.lock`;
      const a = createLease(url, { workerId: 'a', timings, clock: clock.now });
      const b = createLease(url, { workerId: 'b', timings, clock: clock.now });
      expect(await a.tryAcquire()).toBe(true);
      expect(await a.tryAcquire()).toBe(true);
      expect(await b.tryAcquire()).toBe(false);
      expect(await b.activeHolderId()).toBe('a');
      clock.advanceS(timings.timeoutS); // exactly the timeout: still fresh
      expect(await b.tryAcquire()).toBe(false);
      expect(await b.hasActiveHolder()).toBe(true);
      clock.advanceS(0.001);
      expect(await b.hasActiveHolder()).toBe(false);
      expect(await b.tryAcquire()).toBe(true);
      expect(await a.activeHolderId()).toBe('b');
      await expect(a.refresh()).rejects.toMatchObject({ code: 'RIGGING_LEASE_LOST', details: { path: url } });
      await a.release();
      expect(await b.activeHolderId()).toBe('b');
      await b.refresh();
      const state = await b.read();
      expect(state?.lease).toEqual({ workerId: 'b', timestamp: clock.now() / 1000 });
    });

    it('releases only its own lease, idempotently', async () => {
      await using f = await open();
      const url = `${f.root}/c.lock`;
      const a = createLease(url, { workerId: 'a', timings });
      await a.release();
      expect(await a.tryAcquire()).toBe(true);
      await a.release();
      await a.release();
      expect(await a.read()).toBeNull();
      await expect(a.refresh()).rejects.toMatchObject({ code: 'RIGGING_LEASE_LOST' });
      {
        await using held = createLease(url, { workerId: 'd', timings });
        expect(await held.tryAcquire()).toBe(true);
      }
      expect(await a.read()).toBeNull();
    });

    it('treats a malformed lease as stale and takes it over', async () => {
      await using f = await open();
      const url = `${f.root}/d.lock`;
      await filesystemFor(url).writeText(url, 'not json');
      const warnings: string[] = [];
      const a = createLease(url, { workerId: 'a', timings, warn: (m) => warnings.push(m) });
      expect(await a.hasActiveHolder()).toBe(false);
      expect(await a.tryAcquire()).toBe(true);
      expect(warnings.length).toBeGreaterThan(0);
    });

    it('parses a lease written by Python', async () => {
      await using f = await open();
      const url = `${f.root}/e.lock`;
      const now = Date.now() / 1000;
      await filesystemFor(url).writeText(url, `{"worker_id": "py-host-123", "timestamp": ${now}}`);
      const a = createLease(url, { workerId: 'ts', timings });
      expect(await a.activeHolderId()).toBe('py-host-123');
      expect(await a.tryAcquire()).toBe(false);
      expect(formatLease('py-host-123', now)).toMatch(/^\{"worker_id": "py-host-123", "timestamp": \d+\.\d+\}$/);
    });
  });

  describe(`conditionalObject (${name})`, () => {
    it('creates only once, swaps on the current version and refuses a stale one', async () => {
      await using f = await open();
      const obj = conditionalObject(`${f.root}/state.json`);
      expect(await obj.read()).toBeNull();
      const v1 = await obj.write('one', null);
      await expect(obj.write('again', null)).rejects.toMatchObject({ code: 'RIGGING_CONDITIONAL_WRITE_FAILED' });
      const v2 = await obj.write('two', v1);
      await expect(obj.write('three', v1)).rejects.toMatchObject({ code: 'RIGGING_CONDITIONAL_WRITE_FAILED' });
      const cur = await obj.read();
      expect(cur?.data.toString()).toBe('two');
      expect(cur?.version).toBe(v2);
    });
  });
}
