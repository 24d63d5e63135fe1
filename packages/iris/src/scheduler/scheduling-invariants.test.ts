import { describe, expect, it } from 'vitest';
import { jobWithTasks, tick, worker } from '../../test/helpers/scheduler-fixtures.js';
import { constraintMatches, isRequired } from '../core/constraint-match.js';
import type { Constraint, SchedulerWorker } from './types.js';

/** A small deterministic generator, so a failing round can be replayed. */
function generator(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

describe('scheduleTick() invariants over random snapshots', () => {
  it('never over-commits, respects caps, constraints and taints, and places gangs whole', () => {
    const rand = generator(2024);
    for (let round = 0; round < 60; round++) {
      const workers: SchedulerWorker[] = Array.from({ length: 2 + rand(10) }, (_, i) =>
        worker(`w${i}`, {
          cores: 2 + rand(8),
          memoryGiB: 4 + rand(16),
          tpuChips: rand(2) * 4,
          healthy: rand(6) > 0,
          building: rand(3),
          committed: { cpuMillicores: rand(2) * 1000 },
          attributes: {
            region: ['east', 'west'][rand(2)] ?? 'east',
            'tpu-name': `s${rand(3)}`,
            'tpu-worker-id': rand(4),
            ...(rand(5) === 0 ? { 'taint:special': 'yes' } : {}),
          },
        }),
      );
      const constraintChoices: Constraint[][] = [
        [],
        [{ key: 'region', op: 'EQ', value: 'west' }],
        [{ key: 'taint:special', op: 'EXISTS' }],
        [{ key: 'region', op: 'EQ', value: 'east', mode: 'PREFERRED' }],
      ];
      const entries = Array.from({ length: 1 + rand(8) }, (_, j) => {
        const gang = rand(3) === 0;
        return jobWithTasks(`/u/r${round}/j${j}`, gang ? 2 * (1 + rand(2)) : 1 + rand(6), {
          cores: 1 + rand(3),
          memoryGiB: 1 + rand(4),
          tpuChips: rand(3) === 0 ? 4 : 0,
          coscheduling: gang ? { groupBy: 'tpu-name', tasksPerGroup: 2 } : null,
          constraints: constraintChoices[rand(constraintChoices.length)] ?? [],
        });
      });
      const limits = { maxBuildingTasks: 3 + rand(6), maxAssignmentsPerWorker: 1 + rand(4) };
      const result = tick(workers, entries, { limits });

      const byWorker = new Map<string, { cpu: number; mem: number; tpu: number; count: number }>();
      for (const a of result.assignments) {
        const w = workers.find((x) => x.workerId === a.workerId);
        const e = entries.find((x) => x.job.jobId === a.jobId);
        expect(w?.healthy).toBe(true);
        if (w === undefined || e === undefined) continue;
        for (const c of e.job.constraints.filter(isRequired)) expect(constraintMatches(c, w.attributes)).toBe(true);
        if (w.attributes['taint:special'] !== undefined) expect(e.job.constraints.some((c) => c.key === 'taint:special')).toBe(true);
        const used = byWorker.get(w.workerId) ?? { cpu: 0, mem: 0, tpu: 0, count: 0 };
        used.cpu += e.job.resources.cpuMillicores;
        used.mem += e.job.resources.memoryBytes;
        used.tpu += e.job.resources.tpuChips;
        used.count += 1;
        byWorker.set(w.workerId, used);
      }
      for (const [id, used] of byWorker) {
        const w = workers.find((x) => x.workerId === id);
        if (w === undefined) continue;
        expect(used.cpu + w.committed.cpuMillicores).toBeLessThanOrEqual(w.capacity.cpuMillicores);
        expect(used.mem + w.committed.memoryBytes).toBeLessThanOrEqual(w.capacity.memoryBytes);
        expect(used.tpu + w.committed.tpuChips).toBeLessThanOrEqual(w.capacity.tpuChips);
        expect(used.count).toBeLessThanOrEqual(limits.maxAssignmentsPerWorker);
        expect(used.count + w.buildingCount).toBeLessThanOrEqual(Math.max(limits.maxBuildingTasks, w.buildingCount));
      }
      for (const e of entries) {
        const placed = result.assignments.filter((a) => a.jobId === e.job.jobId);
        if (e.job.coscheduling === null) continue;
        expect([0, e.tasks.length]).toContain(placed.length);
        const groups = new Set(placed.map((a) => a.gang?.groupValue));
        expect(groups.size).toBe(placed.length / 2);
        expect(new Set(placed.map((a) => a.workerId)).size).toBe(placed.length);
      }
      const pendingIds = new Set(result.pendingJobs.map((p) => p.jobId));
      for (const e of entries) {
        const placed = result.assignments.filter((a) => a.jobId === e.job.jobId).length;
        expect(pendingIds.has(e.job.jobId)).toBe(placed < e.tasks.length);
      }
    }
  });
});
