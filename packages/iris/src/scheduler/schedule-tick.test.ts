import { describe, expect, it } from 'vitest';
import { SimCluster, jobWithTasks, placement, tick, worker } from '../../test/helpers/scheduler-fixtures.js';

describe('scheduleTick() placement', () => {
  it('assigns one task to one worker, and nothing without workers', () => {
    const e = jobWithTasks('/alice/one', 1);
    expect(placement(tick([worker('w1')], [e]))).toEqual({ '/alice/one/0': 'w1' });
    const none = tick([], [e]);
    expect(none.assignments).toEqual([]);
    expect(none.pendingJobs).toEqual([
      { jobId: '/alice/one', taskId: '/alice/one/0', reason: 'no healthy workers registered', canBeScheduled: false },
    ]);
  });

  it('spreads 3 jobs over 3 equal workers', () => {
    const workers = [worker('w1'), worker('w2'), worker('w3')];
    const result = tick(workers, [jobWithTasks('/u/a', 1), jobWithTasks('/u/b', 1), jobWithTasks('/u/c', 1)]);
    expect(new Set(result.assignments.map((a) => a.workerId))).toEqual(new Set(['w1', 'w2', 'w3']));
  });

  it('lets a lone worker take several tasks over several ticks', () => {
    const sim = new SimCluster([worker('w1', { cores: 16 })]);
    sim.submit('/u/many', 10, { cores: 1 });
    const perTick: number[] = [];
    for (let i = 0; i < 3; i++) perTick.push(sim.tick().assignments.length);
    expect(perTick).toEqual([4, 4, 2]);
    expect(sim.pendingCount()).toBe(0);
  });
});
