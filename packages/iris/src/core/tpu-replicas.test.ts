import { describe, expect, it } from 'vitest';
import { MAX_REPLICAS_PER_JOB, adjustTpuReplicas, planReplicas, resolveCoscheduling } from './tpu-replicas.js';

const v5e16 = { kind: 'tpu', variant: 'v5litepod-16' } as const;
const v5e8 = { kind: 'tpu', variant: 'v5litepod-8' } as const;

describe('adjustTpuReplicas()', () => {
  it('turns 1 into vm_count for a multi-VM variant', () => {
    expect(adjustTpuReplicas(v5e16, 1)).toBe(4);
    expect(adjustTpuReplicas({ kind: 'tpu', variant: 'v4-32' }, 1)).toBe(4);
  });

  it('keeps multiples of vm_count and rejects other counts', () => {
    expect(adjustTpuReplicas(v5e16, 8)).toBe(8);
    expect(() => adjustTpuReplicas(v5e16, 6)).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT', details: expect.objectContaining({ vmCount: 4 }) }),
    );
  });

  it('leaves single-VM variants and other devices unchanged, and treats ≤ 0 as 1', () => {
    expect(adjustTpuReplicas(v5e8, 3)).toBe(3);
    expect(adjustTpuReplicas({ kind: 'cpu' }, 5)).toBe(5);
    expect(adjustTpuReplicas({ kind: 'cpu' }, 0)).toBe(1);
    expect(adjustTpuReplicas({ kind: 'gpu', variant: 'h100', count: 8 }, -2)).toBe(1);
    expect(adjustTpuReplicas(v5e16, 0)).toBe(4);
  });

  it('rejects an unknown TPU variant', () => {
    expect(() => adjustTpuReplicas({ kind: 'tpu', variant: 'v5litepod-3' }, 1)).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }),
    );
  });
});

describe('resolveCoscheduling()', () => {
  it('groups a multi-VM TPU job by tpu-name in gangs of vm_count', () => {
    expect(resolveCoscheduling(v5e16, 4)).toEqual({ groupBy: 'tpu-name', tasksPerGroup: 4 });
  });

  it('never coschedules single-VM TPU jobs', () => {
    expect(resolveCoscheduling(v5e8, 4)).toBeNull();
  });

  it('puts a multi-task GPU job in one pool group, and leaves CPU jobs alone', () => {
    expect(resolveCoscheduling({ kind: 'gpu', variant: 'h100', count: 8 }, 2)).toEqual({ groupBy: 'pool', tasksPerGroup: 0 });
    expect(resolveCoscheduling({ kind: 'gpu', variant: 'h100', count: 8 }, 1)).toBeNull();
    expect(resolveCoscheduling({ kind: 'cpu' }, 8)).toBeNull();
  });
});

describe('planReplicas()', () => {
  it('counts slices for a multi-slice TPU job', () => {
    expect(planReplicas(v5e16, 8)).toEqual({
      replicas: 8,
      sliceCount: 2,
      coscheduling: { groupBy: 'tpu-name', tasksPerGroup: 4 },
      failure: null,
    });
  });

  it('flags counts above MAX_REPLICAS_PER_JOB as an immediate failure', () => {
    expect(MAX_REPLICAS_PER_JOB).toBe(10_000);
    expect(planReplicas({ kind: 'cpu' }, 10_000).failure).toBeNull();
    expect(planReplicas({ kind: 'cpu' }, 10_001).failure).toContain('exceeds max 10000');
  });
});
