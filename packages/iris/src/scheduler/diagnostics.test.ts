import { describe, expect, it } from 'vitest';
import { GIB, jobWithTasks, tick, tpuSlice, worker } from '../../test/helpers/scheduler-fixtures.js';
import { formatFitFailure } from './capacity.js';
import { deriveDeviceConstraints } from '../core/device-constraints.js';
import { SCHEDULABLE_REASON } from './diagnostics.js';

describe('pending reasons', () => {
  const workers = [...tpuSlice('a', 'v5litepod-4'), ...tpuSlice('b', 'v5litepod-4'), worker('cpu')];

  it('names the constraint key on a variant mismatch, with how many workers were left', () => {
    const e = jobWithTasks('/u/v6', 1, { tpuChips: 4, constraints: deriveDeviceConstraints({ kind: 'tpu', variant: 'v6e-4' }) });
    const [p] = tick(workers, [e]).pendingJobs;
    expect(p).toMatchObject({ jobId: '/u/v6', taskId: '/u/v6/0', canBeScheduled: false });
    expect(p?.reason).toBe('no worker matches constraint device-variant EQ v6e-4 (0 of 2 workers)');
  });

  it('names the constraint key on a device-type mismatch', () => {
    const e = jobWithTasks('/u/gpu', 1, { gpus: 1, constraints: deriveDeviceConstraints({ kind: 'gpu', variant: 'H100', count: 1 }) });
    expect(tick(workers, [e]).pendingJobs[0]?.reason).toBe('no worker matches constraint device-type EQ gpu (0 of 3 workers)');
  });

  it('mentions 8 and 4 when a task needs more chips than a VM has', () => {
    const e = jobWithTasks('/u/chips', 1, { tpuChips: 8, constraints: [{ key: 'device-type', op: 'EQ', value: 'tpu' }] });
    const [p] = tick(workers, [e]).pendingJobs;
    expect(p).toMatchObject({ reason: 'Insufficient TPU chips (need 8, available 4)', canBeScheduled: false });
  });

  it('reports CPU, memory and GPU shortfalls with their units', () => {
    const busy = worker('w', { cores: 4, memoryGiB: 8, gpus: 8, committed: { cpuMillicores: 3000, memoryBytes: 4 * GIB, gpuCount: 4 } });
    expect(tick([busy], [jobWithTasks('/u/cpu', 1, { cores: 2 })]).pendingJobs[0]).toMatchObject({
      reason: 'Insufficient CPU (need 2 cores, available 1 cores)',
      canBeScheduled: true,
    });
    expect(tick([busy], [jobWithTasks('/u/mem', 1, { cores: 0.5, memoryGiB: 8 })]).pendingJobs[0]?.reason).toBe(
      'Insufficient memory (need 8.0 GiB, available 4.0 GiB)',
    );
    expect(tick([busy], [jobWithTasks('/u/gpu', 1, { cores: 0.5, gpus: 8 })]).pendingJobs[0]?.reason).toBe(
      'Insufficient GPUs (need 8, available 4)',
    );
    expect(formatFitFailure({ check: 'cpu', need: 500, available: 250 })).toBe('Insufficient CPU (need 0.5 cores, available 0.25 cores)');
  });

  it('describes gang capacity', () => {
    const slice = tpuSlice('slice-a', 'v5litepod-16').map((w, i) => (i === 0 ? { ...w, committed: { ...w.committed, tpuChips: 4 } } : w));
    const e = jobWithTasks('/u/gang', 4, {
      tpuChips: 4,
      coscheduling: { groupBy: 'tpu-name', tasksPerGroup: 4 },
      constraints: deriveDeviceConstraints({ kind: 'tpu', variant: 'v5litepod-16' }),
    });
    expect(tick(slice, [e]).pendingJobs[0]).toMatchObject({
      reason: "coscheduling: group 'slice-a' has 4 matching workers but only 3 have capacity",
      canBeScheduled: true,
    });
  });

  it('says a gang cannot form when no worker carries the group attribute', () => {
    const e = jobWithTasks('/u/pool', 2, { coscheduling: { groupBy: 'pool', tasksPerGroup: 0 } });
    expect(tick([worker('a'), worker('b')], [e]).pendingJobs[0]).toMatchObject({
      reason: "coscheduling: no matching worker has attribute 'pool'",
      canBeScheduled: false,
    });
  });

  it('says "schedulable" for a job that fits but waits for the next pass', () => {
    const result = tick([worker('w', { cores: 64 })], [jobWithTasks('/u/many', 6)]);
    expect(result.assignments).toHaveLength(4);
    expect(result.pendingJobs).toEqual([
      { jobId: '/u/many', taskId: '/u/many/4', reason: SCHEDULABLE_REASON, canBeScheduled: true },
    ]);
    expect(SCHEDULABLE_REASON).toContain('schedulable');
  });

  it('gives every pending job a reason, never "unknown", across many mixed scenarios', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 40; round++) {
      const ws = Array.from({ length: rand(6) }, (_, i) =>
        worker(`w${i}`, {
          cores: 1 + rand(8),
          healthy: rand(5) > 0,
          tpuChips: rand(2) * 4,
          attributes: { region: ['a', 'b'][rand(2)] ?? 'a', ...(rand(4) === 0 ? { 'taint:x': 1 } : {}), pool: `p${rand(2)}` },
        }),
      );
      const entries = Array.from({ length: 1 + rand(6) }, (_, j) =>
        jobWithTasks(`/u/r${round}j${j}`, 1 + rand(4), {
          cores: 1 + rand(6),
          tpuChips: rand(3) === 0 ? 4 : 0,
          coscheduling: rand(3) === 0 ? { groupBy: 'pool', tasksPerGroup: rand(2) } : null,
          constraints: rand(2) === 0 ? [{ key: 'region', op: 'EQ', value: 'b' }] : [],
        }),
      );
      const result = tick(ws, entries);
      const placed = new Set(result.assignments.map((a) => a.taskId));
      const stillPending = entries.filter((e) => e.tasks.some((t) => !placed.has(t.taskId))).map((e) => e.job.jobId);
      expect(result.pendingJobs.map((p) => p.jobId).sort()).toEqual(stillPending.sort());
      for (const p of result.pendingJobs) {
        expect(p.reason.length).toBeGreaterThan(0);
        expect(p.reason.toLowerCase()).not.toContain('unknown');
      }
    }
  });
});
