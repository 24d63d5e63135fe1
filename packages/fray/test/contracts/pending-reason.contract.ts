// `JobHandle.pendingReason()` as every backend answers it; run against the local backend, an embedded Iris cluster
// and a real Ray head. Each backend names a job it cannot start; the contract checks that a reason is given while the
// job waits and none once a job runs or has ended, never the wording.
import { pollUntil } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { Entrypoint } from '@marin/fray';
import type { Client, JobHandle, ResourceConfig } from '@marin/fray';

/** How one backend is driven by the contract. */
export interface PendingReasonBackend {
  /** A fresh client per test; the local one has a single slot, so its second job waits for the first. */
  open: () => Client;
  /** Resources no worker of the backend has (a TPU variant it lacks); omitted where resources are not enforced. */
  unplaceable?: ResourceConfig;
}

const SLEEPER = Entrypoint.fromBinary('node', ['-e', 'setTimeout(() => {}, 120000)']);

function unique(base: string): string {
  return `${base}-${Math.random().toString(16).slice(2, 8)}`;
}

async function reachesRunning(job: JobHandle): Promise<boolean> {
  return pollUntil(async () => (await job.status()) === 'running', { timeoutMs: 60_000, interval: 50 });
}

/** Registers the shared pending-reason behaviour for one backend. */
export function pendingReasonContract(backend: string, setup: PendingReasonBackend): void {
  describe(`JobHandle.pendingReason (${backend})`, () => {
    it('says why a job cannot start, and nothing for a running or finished job', async () => {
      await using client = setup.open();
      const first = await client.submit({ name: unique('p-run'), entrypoint: SLEEPER });
      expect(await reachesRunning(first)).toBe(true);
      expect(await first.pendingReason()).toBeUndefined();

      const waiting = await client.submit({
        name: unique('p-wait'),
        entrypoint: SLEEPER,
        ...(setup.unplaceable === undefined ? {} : { resources: setup.unplaceable }),
      });
      let reason: string | undefined;
      expect(await pollUntil(async () => (reason = await waiting.pendingReason()) !== undefined, { timeoutMs: 30_000, interval: 100 })).toBe(true);
      expect(typeof reason).toBe('string');
      expect(reason?.trim()).not.toBe('');
      expect(await waiting.status()).toBe('pending');

      await waiting.terminate();
      await first.terminate();
      expect(await waiting.wait({ raiseOnFailure: false })).toBe('stopped');
      expect(await first.wait({ raiseOnFailure: false })).toBe('stopped');
      expect(await waiting.pendingReason()).toBeUndefined();
    });
  });
}
