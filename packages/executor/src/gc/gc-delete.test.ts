import { createLease, exists, writeText } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { writeGcExperiment, writeGcInfo, writeGcPrefix } from '../../test/helpers/gc-prefix.js';
import { GC_TOMBSTONE_FILE, readGcTombstone, reclaimFromGc } from '../status/gc-tombstone.js';
import { silentLogger } from '../logger.js';
import { deleteGcCandidates } from './gc-delete.js';
import type { GcDeleteOptions } from './gc-delete.js';
import { planGc } from './gc-plan.js';

// Short leases: the wait between marking and deleting must only exceed timeoutS.
const timings = { heartbeatS: 0.05, timeoutS: 0.2, pollS: 0.02 };
const waitMs = 400;
let n = 0;

/**
 * A prefix with stale outputs a-000001 (SUCCESS), b-000002 (SUCCESS), f-000003 (FAILED) and its
 * plan; with `superseded`, an experiment older than `since` lists them.
 */
async function stalePrefix(superseded = true) {
  const prefix = `memory://gc-delete-${++n}`;
  await writeGcPrefix(prefix, { 'a-000001': 'SUCCESS', 'b-000002': 'SUCCESS', 'f-000003': 'FAILED' }, superseded ? {
    'old-111111.json': { created: '2026-01-01T00:00:00.000000', refs: ['a-000001', 'b-000002', 'f-000003'] },
  } : {});
  const plan = await planGc({ prefix, since: new Date('2026-03-01T00:00:00'), timings });
  expect(plan.candidates.filter((c) => c.action === 'delete')).toHaveLength(3);
  return { prefix, plan };
}

/** Runs `deleteGcCandidates` with `during` started when the wait begins (as a concurrent executor would act). */
async function deleteWith(plan: Awaited<ReturnType<typeof stalePrefix>>['plan'], during: () => Promise<void>, extra: GcDeleteOptions = {}) {
  let concurrent: Promise<void> = Promise.resolve();
  const result = await deleteGcCandidates(plan, {
    timings,
    waitMs,
    ...extra,
    onPhase: (phase) => {
      if (phase === 'wait') concurrent = during();
    },
  });
  await concurrent;
  const outcome = (rel: string): string => {
    if (result.deleted.some((c) => c.rel === rel)) return 'deleted';
    return `skipped: ${result.skipped.find((s) => s.candidate.rel === rel)?.reason ?? '?'}`;
  };
  return { result, outcome };
}

describe('deleteGcCandidates()', () => {
  it('marks every candidate, waits, then deletes the stale ones under their lease leaving nothing behind', async () => {
    const { prefix, plan } = await stalePrefix();
    const marks: (string | undefined)[] = [];
    const { outcome } = await deleteWith(plan, async () => {
      for (const rel of ['a-000001', 'b-000002', 'f-000003']) marks.push((await readGcTombstone(`${prefix}/${rel}`))?.gc);
    }, { gcId: 'gc-test-1' });
    expect(marks).toEqual(['gc-test-1', 'gc-test-1', 'gc-test-1']);
    for (const rel of ['a-000001', 'b-000002', 'f-000003']) {
      expect(outcome(rel)).toBe('deleted');
      for (const f of ['.executor_status', '.executor_info', 'data.bin', GC_TOMBSTONE_FILE, '.executor_status.lock']) expect(await exists(`${prefix}/${rel}/${f}`), `${rel}/${f}`).toBe(false);
    }
  });

  it('keeps what an experiment written during the wait references', async () => {
    const { prefix, plan } = await stalePrefix();
    const { outcome } = await deleteWith(plan, () => writeGcExperiment(prefix, 'new-222222.json', { created: '2026-01-01T00:00:00.000000', refs: ['a-000001'] }));
    // Its created_date is older than --since, yet it appeared after the plan: it counts.
    expect(outcome('a-000001')).toBe('skipped: referenced by a live experiment since the plan');
    expect(outcome('b-000002')).toBe('deleted');
    expect(await exists(`${prefix}/a-000001/data.bin`)).toBe(true);
    expect(await readGcTombstone(`${prefix}/a-000001`)).toBeNull();
  });

  it('backs off from an output an executor reclaimed during the wait', async () => {
    const { prefix, plan } = await stalePrefix();
    const reclaimed: string[] = [];
    const { outcome } = await deleteWith(plan, async () => {
      reclaimed.push(await reclaimFromGc({ outputPath: `${prefix}/a-000001`, label: 'a-000001', timings, logger: silentLogger }));
    });
    expect(reclaimed).toEqual(['reuse']);
    expect(outcome('a-000001')).toBe('skipped: reclaimed by an executor');
    expect(await exists(`${prefix}/a-000001/data.bin`)).toBe(true);
    expect(outcome('b-000002')).toBe('deleted');
  });

  it('keeps a step that started RUNNING during the wait, and its inputs', async () => {
    // No experiment lists them (say, the executor writes its experiment files elsewhere).
    const { prefix, plan } = await stalePrefix(false);
    const lease = createLease(`${prefix}/f-000003/.executor_status.lock`, { workerId: 'exec-1', timings: { ...timings, timeoutS: 30 } });
    const { outcome } = await deleteWith(plan, async () => {
      expect(await lease.tryAcquire()).toBe(true);
      await writeGcInfo(`${prefix}/f-000003`, [`${prefix}/b-000002`]);
      await writeText(`${prefix}/f-000003/.executor_status`, 'RUNNING');
    });
    expect(outcome('f-000003')).toBe('skipped: RUNNING');
    expect(outcome('b-000002')).toBe('skipped: input of f-000003 (RUNNING)');
    expect(outcome('a-000001')).toBe('deleted');
    expect(await exists(`${prefix}/b-000002/data.bin`)).toBe(true);
  });

  it('leaves an output whose lease is held when it comes to deleting it', async () => {
    const { prefix, plan } = await stalePrefix(false);
    // A holder with a long lease (as judged by gc's timings it stays fresh while the holder refreshes).
    const lease = createLease(`${prefix}/a-000001/.executor_status.lock`, { workerId: 'exec-2', timings });
    let holding = true;
    const { outcome } = await deleteWith(plan, async () => {
      expect(await lease.tryAcquire()).toBe(true);
      void (async () => {
        while (holding) {
          await lease.refresh();
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
    });
    holding = false;
    expect(outcome('a-000001')).toBe('skipped: live lease held by exec-2');
    expect(await exists(`${prefix}/a-000001/data.bin`)).toBe(true);
  });

  it('leaves an output whose status changed since the plan', async () => {
    const { prefix, plan } = await stalePrefix();
    const { outcome } = await deleteWith(plan, () => writeText(`${prefix}/f-000003/.executor_status`, 'SUCCESS'));
    expect(outcome('f-000003')).toBe('skipped: status changed to SUCCESS since the plan');
    expect(await exists(`${prefix}/f-000003/data.bin`)).toBe(true);
  });

  it('refuses a wait that does not exceed the lease staleness, before marking anything', async () => {
    const { prefix, plan } = await stalePrefix();
    await expect(deleteGcCandidates(plan, { timings, waitMs: 200 })).rejects.toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { waitMs: 200, timeoutS: 0.2 } });
    expect(await readGcTombstone(`${prefix}/a-000001`)).toBeNull();
    expect(await exists(`${prefix}/a-000001/data.bin`)).toBe(true);
  });
});
