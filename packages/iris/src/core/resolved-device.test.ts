import { describe, expect, it } from 'vitest';
import { resolveDevice } from './resolved-device.js';
import { getTpuTopology } from './tpu-topology.js';

describe('resolveDevice()', () => {
  it('turns a TPU variant into its topology row once, aliases included', () => {
    const device = resolveDevice({ kind: 'tpu', variant: 'V5E-16', count: 4 });
    expect(device).toEqual({ kind: 'tpu', tpu: getTpuTopology('v5litepod-16'), count: 4 });
    expect(device.kind === 'tpu' && device.tpu).toBe(getTpuTopology('v5litepod-16'));
  });

  it('keeps GPU and CPU devices as given', () => {
    expect(resolveDevice({ kind: 'gpu', variant: 'H100', count: 8 })).toEqual({ kind: 'gpu', variant: 'H100', count: 8 });
    expect(resolveDevice({ kind: 'cpu', variant: 'cpu' })).toEqual({ kind: 'cpu' });
  });

  it('rejects an unknown TPU variant with IRIS_INVALID_ARGUMENT', () => {
    expect(() => resolveDevice({ kind: 'tpu', variant: 'v5litepod-3' })).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});
