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

describe('scheduleTick() capacity', () => {
  it('skips an 8-CPU job that fits nowhere and places a later 2-CPU job (no head-of-line blocking)', () => {
    const big = jobWithTasks('/u/big', 1, { cores: 8 });
    const small = jobWithTasks('/u/small', 1, { cores: 2 });
    const result = tick([worker('w1', { cores: 4 })], [big, small]);
    expect(placement(result)).toEqual({ '/u/small/0': 'w1' });
    expect(result.pendingJobs.map((p) => p.jobId)).toEqual(['/u/big']);
  });

  it('exhausts a job at its first unplaceable task and still places later jobs', () => {
    const wide = jobWithTasks('/u/wide', 3, { cores: 3 });
    const later = jobWithTasks('/u/later', 1, { cores: 1 });
    const result = tick([worker('w1', { cores: 4 }), worker('w2', { cores: 4 })], [wide, later]);
    expect(placement(result)).toEqual({ '/u/wide/0': 'w1', '/u/wide/1': 'w2', '/u/later/0': 'w1' });
    expect(result.pendingJobs).toMatchObject([{ jobId: '/u/wide', taskId: '/u/wide/2' }]);
  });

  it('does not place deadline-expired tasks and reports them; an unset deadline never expires', () => {
    const expired = jobWithTasks('/u/late', 1);
    expired.tasks = expired.tasks.map((t) => ({ ...t, schedulingDeadlineMs: 5_000 }));
    const open = jobWithTasks('/u/open', 1);
    open.tasks = open.tasks.map((t) => ({ ...t, schedulingDeadlineMs: null }));
    const result = tick([worker('w1')], [expired, open], { nowMs: Number.MAX_SAFE_INTEGER });
    expect(result.expiredTaskIds).toEqual(['/u/late/0']);
    expect(placement(result)).toEqual({ '/u/open/0': 'w1' });
    expect(result.pendingJobs).toEqual([]);
  });

  it('fits only two 2-CPU tasks on a 4-CPU worker, counting running tasks against capacity', () => {
    expect(tick([worker('w1', { cores: 4 })], [jobWithTasks('/u/j', 3, { cores: 2 })]).assignments).toHaveLength(2);
    const busy = worker('w1', { cores: 4, committed: { cpuMillicores: 2000 } });
    expect(tick([busy], [jobWithTasks('/u/k', 3, { cores: 2 })]).assignments).toHaveLength(1);
  });

  it('checks memory, GPUs and TPU chips', () => {
    const w = worker('w1', { cores: 64, memoryGiB: 8, gpus: 2, tpuChips: 4 });
    expect(tick([w], [jobWithTasks('/u/mem', 3, { memoryGiB: 4 })]).assignments).toHaveLength(2);
    expect(tick([w], [jobWithTasks('/u/gpu', 3, { gpus: 1 })]).assignments).toHaveLength(2);
    expect(tick([w], [jobWithTasks('/u/tpu', 3, { tpuChips: 2 })]).assignments).toHaveLength(2);
  });

  it('skips unhealthy workers, and gives nothing to a task too large for every worker', () => {
    const workers = [worker('sick', { healthy: false, cores: 64 }), worker('ok', { cores: 4 })];
    expect(placement(tick(workers, [jobWithTasks('/u/j', 1, { cores: 2 })]))).toEqual({ '/u/j/0': 'ok' });
    const huge = tick(workers, [jobWithTasks('/u/huge', 1, { cores: 32 })]);
    expect(huge.assignments).toEqual([]);
    expect(huge.pendingJobs[0]).toMatchObject({ canBeScheduled: false });
  });

  it('deducts TPU chips, rejects a task needing more chips than are free, and reuses them after completion', () => {
    const sim = new SimCluster([worker('tpu', { tpuChips: 8, attributes: { 'device-type': 'tpu' } })]);
    sim.submit('/u/a', 1, { tpuChips: 8 });
    sim.submit('/u/b', 1, { tpuChips: 4 });
    expect(placement(sim.tick())).toEqual({ '/u/a/0': 'tpu' });
    const blocked = sim.tick();
    expect(blocked.assignments).toEqual([]);
    expect(blocked.pendingJobs[0]?.reason).toBe('Insufficient TPU chips (need 4, available 0)');
    sim.finish('/u/a/0');
    expect(placement(sim.tick())).toEqual({ '/u/b/0': 'tpu' });
  });

  it('lets small tasks fill a worker over several ticks', () => {
    const sim = new SimCluster([worker('w1', { cores: 4 })]);
    sim.submit('/u/small', 6, { cores: 1 });
    expect(sim.tick().assignments).toHaveLength(4);
    expect(sim.tick().assignments).toHaveLength(0);
    sim.finish('/u/small/0');
    sim.finish('/u/small/1');
    expect(sim.tick().assignments).toHaveLength(2);
    expect(sim.pendingCount()).toBe(0);
  });
});

describe('scheduleTick() limits', () => {
  it('gives a worker at most 4 assignments per tick and stops at 8 building tasks', () => {
    const sim = new SimCluster([worker('w1', { cores: 64 })]);
    sim.submit('/u/many', 12, { cores: 1 });
    expect(sim.tick({ building: true }).assignments).toHaveLength(4);
    expect(sim.tick({ building: true }).assignments).toHaveLength(4);
    const capped = sim.tick({ building: true });
    expect(capped.assignments).toHaveLength(0);
    expect(capped.pendingJobs[0]).toMatchObject({
      reason: 'Worker at building task limit (8/8 concurrent builds)',
      canBeScheduled: true,
    });
  });

  it('takes both limits from the input', () => {
    const sim = new SimCluster([worker('w1', { cores: 64 })]);
    sim.submit('/u/many', 5, { cores: 1 });
    const limits = { maxAssignmentsPerWorker: 2, maxBuildingTasks: 3 };
    expect(sim.tick({ building: true, limits }).assignments).toHaveLength(2);
    expect(sim.tick({ building: true, limits }).assignments).toHaveLength(1);
  });

  it('spreads over workers by fewest assignments this tick before registration order', () => {
    const result = tick([worker('w1'), worker('w2')], [jobWithTasks('/u/j', 4)]);
    expect(placement(result)).toEqual({ '/u/j/0': 'w1', '/u/j/1': 'w2', '/u/j/2': 'w1', '/u/j/3': 'w2' });
  });

  it('never places tasks that are not pending or still have a live attempt', () => {
    const e = jobWithTasks('/u/j', 4);
    e.tasks = [
      { ...e.tasks[0]!, state: 'RUNNING' },
      { ...e.tasks[1]!, state: 'SUCCEEDED' },
      { ...e.tasks[2]!, hasLiveAttempt: true },
      e.tasks[3]!,
    ];
    expect(placement(tick([worker('w1')], [e]))).toEqual({ '/u/j/3': 'w1' });
  });

  it('explains a job whose only pending task still has a live attempt', () => {
    const e = jobWithTasks('/u/bounced', 2);
    e.tasks = [{ ...e.tasks[0]!, state: 'RUNNING' }, { ...e.tasks[1]!, hasLiveAttempt: true }];
    const result = tick([worker('w1')], [e]);
    expect(result.assignments).toEqual([]);
    expect(result.pendingJobs).toMatchObject([{ jobId: '/u/bounced', taskId: '/u/bounced/1', canBeScheduled: true }]);
  });

  it('does not modify its input and is deterministic', () => {
    const workers = [worker('w1'), worker('w2')];
    const entries = [jobWithTasks('/u/a', 3), jobWithTasks('/u/b', 2, { cores: 3 })];
    const before = JSON.stringify({ workers, entries });
    const first = tick(workers, entries);
    expect(tick(workers, entries)).toEqual(first);
    expect(JSON.stringify({ workers, entries })).toBe(before);
  });
});
