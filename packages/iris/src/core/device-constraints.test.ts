import { describe, expect, it } from 'vitest';
import { SimCluster, jobWithTasks, placement, tick, tpuSlice, worker } from '../../test/helpers/scheduler-fixtures.js';
import { getTpuTopology } from './tpu-topology.js';
import type { TpuTopology } from './tpu-topology.js';
import { canonicalGpuVariant, deriveDeviceConstraints, deviceConstraintsOf, mergeConstraints } from './device-constraints.js';
import type { Constraint } from './constraints.js';

describe('deriveDeviceConstraints()', () => {
  it('adds device-type and the canonical variant for accelerators, nothing for CPU', () => {
    expect(deriveDeviceConstraints({ kind: 'cpu' })).toEqual([]);
    expect(deriveDeviceConstraints({ kind: 'tpu', variant: 'v5e-16' })).toEqual([
      { key: 'device-type', op: 'EQ', value: 'tpu' },
      { key: 'device-variant', op: 'EQ', value: 'v5litepod-16' },
    ]);
    expect(deriveDeviceConstraints({ kind: 'gpu', variant: 'H100', count: 8 })).toEqual([
      { key: 'device-type', op: 'EQ', value: 'gpu' },
      { key: 'device-variant', op: 'EQ', value: 'h100' },
    ]);
  });

  it('leaves out the variant for auto', () => {
    expect(deriveDeviceConstraints({ kind: 'tpu', variant: 'auto' })).toEqual([{ key: 'device-type', op: 'EQ', value: 'tpu' }]);
    expect(deriveDeviceConstraints({ kind: 'gpu', variant: 'auto', count: 8 })).toEqual([{ key: 'device-type', op: 'EQ', value: 'gpu' }]);
  });

  it('rejects an unknown TPU variant', () => {
    expect(() => deriveDeviceConstraints({ kind: 'tpu', variant: 'v5litepod-3' })).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }),
    );
  });
});

describe('deviceConstraintsOf()', () => {
  it('takes the variant of a resolved TPU from its topology row, without reading the table again', () => {
    expect(deviceConstraintsOf({ kind: 'tpu', tpu: getTpuTopology('v5e-16') })).toEqual([
      { key: 'device-type', op: 'EQ', value: 'tpu' },
      { key: 'device-variant', op: 'EQ', value: 'v5litepod-16' },
    ]);
    // A row the table does not hold: a second look-up would throw IRIS_INVALID_ARGUMENT.
    const unlisted = { ...getTpuTopology('v6e-8'), name: 'v6e-12' } as TpuTopology;
    expect(deviceConstraintsOf({ kind: 'tpu', tpu: unlisted })).toContainEqual({ key: 'device-variant', op: 'EQ', value: 'v6e-12' });
  });

  it('canonicalizes GPU variants and leaves CPU unconstrained, as deriveDeviceConstraints does', () => {
    expect(deviceConstraintsOf({ kind: 'gpu', variant: 'H100', count: 8 })).toEqual(deriveDeviceConstraints({ kind: 'gpu', variant: 'H100', count: 8 }));
    expect(deviceConstraintsOf({ kind: 'gpu', variant: 'auto' })).toEqual([{ key: 'device-type', op: 'EQ', value: 'gpu' }]);
    expect(deviceConstraintsOf({ kind: 'cpu' })).toEqual([]);
  });
});

describe('canonicalGpuVariant()', () => {
  it('reads user specs and nvidia-smi names', () => {
    expect(canonicalGpuVariant('H100')).toBe('h100');
    expect(canonicalGpuVariant('NVIDIA H100 80GB HBM3')).toBe('h100');
    expect(canonicalGpuVariant('NVIDIA A100-SXM4-80GB')).toBe('a100');
    expect(canonicalGpuVariant('NVIDIA GeForce RTX 4090')).toBe('rtx4090');
    expect(canonicalGpuVariant('NVIDIA L40S')).toBe('l40s');
    expect(canonicalGpuVariant('Tesla T4')).toBe('t4');
    expect(canonicalGpuVariant('Radeon')).toBeUndefined();
  });
});

describe('mergeConstraints()', () => {
  const derived = deriveDeviceConstraints({ kind: 'tpu', variant: 'v5litepod-16' });

  it('lets user constraints replace derived ones on canonical keys and appends the rest', () => {
    const user: Constraint[] = [
      { key: 'device-variant', op: 'IN', values: ['v5litepod-16', 'v6e-16'] },
      { key: 'team', op: 'EQ', value: 'lm' },
    ];
    expect(mergeConstraints({ derived, user })).toEqual([{ key: 'device-type', op: 'EQ', value: 'tpu' }, ...user]);
  });

  it('lets a child replace its parent on canonical keys, and de-duplicates the rest', () => {
    const parent: Constraint[] = [
      { key: 'region', op: 'EQ', value: 'us-east1' },
      { key: 'team', op: 'EQ', value: 'lm' },
      { key: 'device-type', op: 'EQ', value: 'gpu' },
    ];
    const user: Constraint[] = [
      { key: 'region', op: 'EQ', value: 'eu-west4' },
      { key: 'team', op: 'EQ', value: 'lm' },
    ];
    expect(mergeConstraints({ derived, user, parent })).toEqual([...derived, ...user]);
  });

  it('inherits the parent constraints a CPU child does not set', () => {
    const parent: Constraint[] = [{ key: 'region', op: 'EQ', value: 'us-east1' }];
    expect(mergeConstraints({ derived: [], user: [], parent })).toEqual(parent);
  });
});

describe('scheduling by device', () => {
  const tpuJob = (id: string, variant: string) =>
    jobWithTasks(id, 1, { tpuChips: 4, constraints: deriveDeviceConstraints({ kind: 'tpu', variant }) });

  it('schedules jobs of mixed variants on their own workers', () => {
    const workers = [
      ...tpuSlice('a', 'v5litepod-4'),
      ...tpuSlice('b', 'v6e-4'),
      worker('gpu', { gpus: 8, attributes: { 'device-type': 'gpu', 'device-variant': 'h100' } }),
    ];
    const gpuJob = jobWithTasks('/u/g', 1, { gpus: 8, constraints: deriveDeviceConstraints({ kind: 'gpu', variant: 'H100', count: 8 }) });
    const result = tick(workers, [tpuJob('/u/v6', 'v6e-4'), tpuJob('/u/v5', 'v5litepod-4'), gpuJob]);
    expect(placement(result)).toEqual({ '/u/v6/0': 'b-w0', '/u/v5/0': 'a-w0', '/u/g/0': 'gpu' });
  });

  it('places variant auto on any TPU worker and a CPU job on a TPU worker', () => {
    const workers = tpuSlice('a', 'v6e-8');
    expect(placement(tick(workers, [tpuJob('/u/auto', 'auto')]))).toEqual({ '/u/auto/0': 'a-w0' });
    expect(placement(tick(workers, [jobWithTasks('/u/cpu', 1)]))).toEqual({ '/u/cpu/0': 'a-w0' });
  });

  it('schedules 25 single-VM jobs on 8 same-variant workers over several ticks', () => {
    const workers = Array.from({ length: 8 }, (_, i) => tpuSlice(`s${i}`, 'v5litepod-4')).flat();
    const sim = new SimCluster(workers);
    for (let i = 0; i < 25; i++) sim.submit(`/u/j${i}`, 1, { tpuChips: 4, constraints: deriveDeviceConstraints({ kind: 'tpu', variant: 'v5litepod-4' }) });
    let ticks = 0;
    while (sim.pendingCount() > 0 && ticks < 20) {
      sim.tick();
      ticks += 1;
      for (const taskId of [...sim.running.keys()]) sim.finish(taskId);
    }
    expect(sim.pendingCount()).toBe(0);
    expect(ticks).toBe(4);
  });

  it('matches GPU jobs by the canonical variant, and IN accepts either of two variants', () => {
    const workers = [
      worker('a100', { gpus: 8, attributes: { 'device-type': 'gpu', 'device-variant': 'a100' } }),
      worker('h100', { gpus: 8, attributes: { 'device-type': 'gpu', 'device-variant': 'h100' } }),
    ];
    const byName = jobWithTasks('/u/h', 1, { gpus: 8, constraints: deriveDeviceConstraints({ kind: 'gpu', variant: 'NVIDIA H100 80GB HBM3', count: 8 }) });
    expect(placement(tick(workers, [byName]))).toEqual({ '/u/h/0': 'h100' });
    const either = jobWithTasks('/u/e', 2, {
      gpus: 8,
      constraints: mergeConstraints({
        derived: deriveDeviceConstraints({ kind: 'gpu', variant: 'H100', count: 8 }),
        user: [{ key: 'device-variant', op: 'IN', values: ['h200', 'a100'] }],
      }),
    });
    expect(placement(tick(workers, [either]))).toEqual({ '/u/e/0': 'a100' });
  });
});
