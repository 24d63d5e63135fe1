import { describe, expect, it } from 'vitest';
import { ResourceConfig } from './resource-config.js';

describe('ResourceConfig', () => {
  it('defaults to cpu 1, ram 4g, disk 16g, a CPU device, preemptible, one replica', () => {
    const rc = new ResourceConfig();
    expect(rc).toMatchObject({ cpu: 1, ram: '4g', disk: '16g', device: { kind: 'cpu' }, preemptible: true, replicas: 1 });
    expect(rc.regions).toBeUndefined();
    expect(rc.deviceAlternatives).toBeUndefined();
    expect(rc.chipCount()).toBe(0);
  });

  it('is frozen, and with() returns a changed copy', () => {
    const rc = ResourceConfig.withCpu({ cpu: 4, ram: '16g', disk: '10g' });
    expect(Object.isFrozen(rc)).toBe(true);
    expect(() => {
      (rc as { cpu: number }).cpu = 8;
    }).toThrow(TypeError);
    const nonPreemptible = rc.with({ preemptible: false });
    expect(nonPreemptible).toMatchObject({ cpu: 4, ram: '16g', disk: '10g', preemptible: false });
    expect(rc.preemptible).toBe(true);
  });

  it('withTpu("v5litepod-16") gives replicas 4, cpu 32, ram 128g, disk 50g', () => {
    const rc = ResourceConfig.withTpu('v5litepod-16');
    expect(rc).toMatchObject({ replicas: 4, cpu: 32, ram: '128g', disk: '50g', device: { kind: 'tpu', variant: 'v5litepod-16' } });
    expect(rc.chipCount()).toBe(16);
  });

  it('withTpu with sliceCount 2 doubles the replicas', () => {
    expect(ResourceConfig.withTpu('v5litepod-16', { sliceCount: 2 }).replicas).toBe(8);
    expect(ResourceConfig.withTpu('v5litepod-16', { sliceCount: 2 }).chipCount()).toBe(32);
  });

  it('normalises v5e names through the iris table', () => {
    expect(ResourceConfig.withTpu('v5e-16').device).toEqual({ kind: 'tpu', variant: 'v5litepod-16' });
  });

  it('keeps alternatives of the same VM shape', () => {
    const rc = ResourceConfig.withTpu(['v5litepod-16', 'v6e-16'], { sliceCount: 2 });
    expect(rc.replicas).toBe(8);
    expect(rc.deviceAlternatives).toEqual(['v6e-16']);
    expect(rc.device).toEqual({ kind: 'tpu', variant: 'v5litepod-16' });
  });

  it('rejects alternatives of a different VM shape, naming both', () => {
    let caught: unknown;
    try {
      ResourceConfig.withTpu(['v5litepod-16', 'v6e-8']);
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT', details: { primary: 'v5litepod-16', alternative: 'v6e-8' } });
  });

  it('rejects an unknown TPU variant', () => {
    expect(() => ResourceConfig.withTpu('v9-999')).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    expect(() => new ResourceConfig({ device: { kind: 'tpu', variant: 'nope' } })).toThrow(
      expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT', details: { variant: 'nope' } }),
    );
  });

  it('withGpu("H100", { count: 8 }) counts chips across replicas', () => {
    const rc = ResourceConfig.withGpu('H100', { count: 8 });
    expect(rc.device).toEqual({ kind: 'gpu', variant: 'H100', count: 8 });
    expect(rc.chipCount()).toBe(8);
    expect(rc.with({ replicas: 2 }).chipCount()).toBe(16);
  });

  it('rejects an unknown GPU type', () => {
    expect(() => ResourceConfig.withGpu('H900' as 'H100')).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });

  it('rejects bad fields with FRAY_INVALID_ARGUMENT', () => {
    for (const bad of [{ cpu: 0 }, { cpu: -1 }, { ram: 'lots' }, { disk: '4q' }, { replicas: 0 }, { replicas: 1.5 }, { regions: [] }]) {
      expect(() => new ResourceConfig(bad)).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    }
    expect(() => new ResourceConfig({ deviceAlternatives: ['v6e-16'] })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    expect(() => ResourceConfig.withTpu('v5litepod-16', { sliceCount: 0 })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    expect(() => ResourceConfig.withTpu([])).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });

  it('converts sizes to bytes and round-trips through toJSON', () => {
    const rc = new ResourceConfig({ ram: '4g', disk: '512m', regions: ['us-central1'], zone: 'us-central1-a' });
    expect(rc.ramBytes()).toBe(4294967296);
    expect(rc.diskBytes()).toBe(512 * 1024 * 1024);
    expect(new ResourceConfig(JSON.parse(JSON.stringify(rc)) as object)).toEqual(rc);
  });
});
