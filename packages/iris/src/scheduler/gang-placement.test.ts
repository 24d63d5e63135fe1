import { describe, expect, it } from 'vitest';
import { SimCluster, jobWithTasks, placement, tick, tpuSlice, worker } from '../../test/helpers/scheduler-fixtures.js';
import { planReplicas } from '../core/tpu-replicas.js';
import { deriveDeviceConstraints } from '../core/device-constraints.js';
import type { Constraint } from './types.js';

/** A v5litepod-16 job as submission would shape it: 4 tasks × 4 chips, gangs of 4 by tpu-name. */
function sliceJob(id: string, opts: { slices?: number; constraints?: Constraint[] } = {}) {
  const device = { kind: 'tpu', variant: 'v5litepod-16' } as const;
  const plan = planReplicas(device, 4 * (opts.slices ?? 1));
  return jobWithTasks(id, plan.replicas, {
    tpuChips: 4,
    coscheduling: plan.coscheduling,
    constraints: [...deriveDeviceConstraints(device), ...(opts.constraints ?? [])],
  });
}

describe('coscheduled gangs', () => {
  it('places a gang atomically with task i on tpu-worker-id i, by id not registration order', () => {
    const workers = tpuSlice('slice-a', 'v5litepod-16', { order: [2, 0, 3, 1] });
    const result = tick(workers, [sliceJob('/u/train')]);
    expect(placement(result)).toEqual({
      '/u/train/0': 'slice-a-w0',
      '/u/train/1': 'slice-a-w1',
      '/u/train/2': 'slice-a-w2',
      '/u/train/3': 'slice-a-w3',
    });
    expect(result.assignments[2]?.gang).toEqual({
      groupValue: 'slice-a',
      rank: 2,
      groupSize: 4,
      sliceIndex: 0,
      sliceCount: 1,
      peerWorkerIds: ['slice-a-w0', 'slice-a-w1', 'slice-a-w2', 'slice-a-w3'],
    });
  });

  it('waits with 2 of 4 workers, then schedules when a full group appears', () => {
    const partial = tpuSlice('slice-a', 'v5litepod-16').slice(0, 2);
    const waiting = tick(partial, [sliceJob('/u/train')]);
    expect(waiting.assignments).toEqual([]);
    expect(waiting.pendingJobs[0]).toMatchObject({ canBeScheduled: false });
    expect(waiting.pendingJobs[0]?.reason).toBe("coscheduling: need 4 workers in the same 'tpu-name' group, largest group has 2");
    const full = tick([...partial, ...tpuSlice('slice-b', 'v5litepod-16')], [sliceJob('/u/train2')]);
    expect(new Set(full.assignments.map((a) => a.gang?.groupValue))).toEqual(new Set(['slice-b']));
    expect(full.assignments).toHaveLength(4);
  });

  it('skips a busy group for one with capacity', () => {
    const busy = tpuSlice('slice-a', 'v5litepod-16', { committed: { tpuChips: 4 } });
    const free = tpuSlice('slice-b', 'v5litepod-16');
    const result = tick([...busy, ...free], [sliceJob('/u/train')]);
    expect(result.assignments.map((a) => a.workerId)).toEqual(['slice-b-w0', 'slice-b-w1', 'slice-b-w2', 'slice-b-w3']);
  });

  it('lets a region constraint pick the right group', () => {
    const east = tpuSlice('slice-a', 'v5litepod-16', { attributes: { region: 'us-east1' } });
    const west = tpuSlice('slice-b', 'v5litepod-16', { attributes: { region: 'us-west4' } });
    const result = tick([...east, ...west], [sliceJob('/u/train', { constraints: [{ key: 'region', op: 'EQ', value: 'us-west4' }] })]);
    expect(new Set(result.assignments.map((a) => a.gang?.groupValue))).toEqual(new Set(['slice-b']));
  });

  it('skips a group with a tainted worker even if the other members are clean', () => {
    const a = tpuSlice('slice-a', 'v5litepod-16');
    const tainted = a.map((w, i) => (i === 3 ? { ...w, attributes: { ...w.attributes, 'taint:maintenance': 'true' } } : w));
    const b = tpuSlice('slice-b', 'v5litepod-16');
    const result = tick([...tainted, ...b], [sliceJob('/u/train')]);
    expect(new Set(result.assignments.map((a) => a.gang?.groupValue))).toEqual(new Set(['slice-b']));
    const alone = tick(tainted, [sliceJob('/u/train')]);
    expect(alone.assignments).toEqual([]);
    expect(alone.pendingJobs[0]).toMatchObject({ canBeScheduled: false });
  });

  it('keeps two TPU gangs from double-booking one group', () => {
    const result = tick(tpuSlice('slice-a', 'v5litepod-16'), [sliceJob('/u/one'), sliceJob('/u/two')]);
    expect(result.assignments.map((a) => a.jobId)).toEqual(['/u/one', '/u/one', '/u/one', '/u/one']);
    expect(result.pendingJobs).toMatchObject([{ jobId: '/u/two', canBeScheduled: true }]);
    expect(result.pendingJobs[0]?.reason).toBe("coscheduling: group 'slice-a' has 4 matching workers but only 0 have capacity");
  });

  it('gives a multi-slice job two distinct slices or nothing', () => {
    const one = tick(tpuSlice('slice-a', 'v5litepod-16'), [sliceJob('/u/big', { slices: 2 })]);
    expect(one.assignments).toEqual([]);
    expect(one.pendingJobs[0]?.reason).toBe("coscheduling: need 2 groups of 4 workers by 'tpu-name', 1 available");
    const two = tick([...tpuSlice('slice-b', 'v5litepod-16'), ...tpuSlice('slice-a', 'v5litepod-16')], [sliceJob('/u/big', { slices: 2 })]);
    expect(two.assignments).toHaveLength(8);
    expect(two.assignments.map((a) => [a.taskId, a.workerId, a.gang?.sliceIndex, a.gang?.rank])).toEqual([
      ['/u/big/0', 'slice-a-w0', 0, 0],
      ['/u/big/1', 'slice-a-w1', 0, 1],
      ['/u/big/2', 'slice-a-w2', 0, 2],
      ['/u/big/3', 'slice-a-w3', 0, 3],
      ['/u/big/4', 'slice-b-w0', 1, 0],
      ['/u/big/5', 'slice-b-w1', 1, 1],
      ['/u/big/6', 'slice-b-w2', 1, 2],
      ['/u/big/7', 'slice-b-w3', 1, 3],
    ]);
    expect(two.assignments.every((a) => a.gang?.sliceCount === 2)).toBe(true);
  });

  it('places no member while a sibling still has a live attempt', () => {
    const e = sliceJob('/u/train');
    e.tasks = e.tasks.map((t, i) => (i === 1 ? { ...t, hasLiveAttempt: true } : t));
    const result = tick(tpuSlice('slice-a', 'v5litepod-16'), [e]);
    expect(result.assignments).toEqual([]);
    expect(result.pendingJobs[0]).toMatchObject({ canBeScheduled: true });
  });

  it('places gangs before single tasks that came first in the queue', () => {
    const single = jobWithTasks('/u/early', 1, { tpuChips: 4, submittedAtMs: 1 });
    const result = tick(tpuSlice('slice-a', 'v5litepod-16'), [single, sliceJob('/u/train')]);
    expect(result.assignments.filter((a) => a.jobId === '/u/train')).toHaveLength(4);
    expect(result.pendingJobs.map((p) => p.jobId)).toEqual(['/u/early']);
  });

  it('groups a multi-task GPU job by pool', () => {
    const gpu = (id: string, pool: string) =>
      worker(id, { gpus: 8, attributes: { 'device-type': 'gpu', 'device-variant': 'h100', pool } });
    const workers = [gpu('p1-a', 'p1'), gpu('p2-a', 'p2'), gpu('p2-b', 'p2')];
    const device = { kind: 'gpu', variant: 'H100', count: 8 } as const;
    const plan = planReplicas(device, 2);
    const e = jobWithTasks('/u/gpus', plan.replicas, { gpus: 8, coscheduling: plan.coscheduling, constraints: deriveDeviceConstraints(device) });
    const result = tick(workers, [e]);
    expect(placement(result)).toEqual({ '/u/gpus/0': 'p2-a', '/u/gpus/1': 'p2-b' });
    expect(result.assignments[1]?.gang).toMatchObject({ groupValue: 'p2', rank: 1, groupSize: 2, sliceCount: 1 });
  });

  it('re-places a whole gang after it completes and frees the slice', () => {
    const sim = new SimCluster(tpuSlice('slice-a', 'v5litepod-16'));
    const first = sliceJob('/u/first');
    const second = sliceJob('/u/second');
    sim.entries.push(first, second);
    expect(sim.tick().assignments.map((a) => a.jobId)).toEqual(Array(4).fill('/u/first'));
    expect(sim.tick().assignments).toEqual([]);
    for (let i = 0; i < 4; i++) sim.finish(`/u/first/${i}`);
    expect(sim.tick().assignments.map((a) => a.jobId)).toEqual(Array(4).fill('/u/second'));
  });
});

describe('taints', () => {
  const tainted = worker('special', { attributes: { 'taint:gpu-reserved': 'true' } });

  it('keeps jobs that do not mention a taint off the tainted worker', () => {
    const result = tick([tainted], [jobWithTasks('/u/plain', 1)]);
    expect(result.assignments).toEqual([]);
    expect(result.pendingJobs[0]).toMatchObject({ canBeScheduled: false });
    expect(result.pendingJobs[0]?.reason).toContain('taint:gpu-reserved');
    expect(placement(tick([tainted, worker('plain')], [jobWithTasks('/u/plain', 1)]))).toEqual({ '/u/plain/0': 'plain' });
  });

  it('lets a job that mentions the taint use the worker', () => {
    const e = jobWithTasks('/u/tolerant', 1, { constraints: [{ key: 'taint:gpu-reserved', op: 'EXISTS' }] });
    expect(placement(tick([tainted], [e]))).toEqual({ '/u/tolerant/0': 'special' });
  });
});
