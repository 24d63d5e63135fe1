import { describe, expect, it } from 'vitest';
import { getTpuTopology } from '../core/tpu-topology.js';
import { parseClusterConfig } from './cluster-config.js';

function configWith(slice: unknown) {
  return {
    controller: { state_dir: 'state' },
    platforms: { local: { kind: 'local' } },
    scale_groups: [{ name: 'g', slice, resources: { cpu: 1, memory_bytes: 1 << 30 } }],
  };
}

describe('parseClusterConfig() TPU slices', () => {
  it('resolves a TPU variant once: the parsed slice carries the canonical name and its topology row', () => {
    const [group] = parseClusterConfig(configWith({ kind: 'tpu', variant: 'V5E-16' })).scale_groups;
    expect(group?.slice).toEqual({ kind: 'tpu', variant: 'v5litepod-16', preemptible: false, tpu: getTpuTopology('v5litepod-16') });
  });

  it('names the field of an unknown TPU variant with IRIS_INVALID_ARGUMENT', () => {
    expect(() => parseClusterConfig(configWith({ kind: 'tpu', variant: 'v5litepod-3' }))).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT', details: expect.objectContaining({ field: 'scale_groups.0.slice.variant' }) }),
    );
  });

  it('keeps CPU slices as given', () => {
    expect(parseClusterConfig(configWith({ kind: 'cpu' })).scale_groups[0]?.slice).toEqual({ kind: 'cpu' });
  });
});
