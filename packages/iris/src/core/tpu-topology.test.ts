import { describe, expect, it } from 'vitest';
import { findTpuTopology, getTpuTopology, listTpuVariants, normalizeTpuVariant, tpuVariantName } from './tpu-topology.js';

function shape(variant: string): [number, number, number, number] {
  const t = getTpuTopology(variant);
  return [t.chips, t.hosts, t.vmCount, t.chipsPerVm];
}

describe('getTpuTopology()', () => {
  it('returns the documented topology rows', () => {
    expect(shape('v4-8')).toEqual([4, 1, 1, 4]);
    expect(shape('v4-4096')).toEqual([2048, 512, 512, 4]);
    expect(shape('v5litepod-16')).toEqual([16, 2, 4, 4]);
    expect(shape('v5litepod-256')).toEqual([256, 32, 64, 4]);
    expect(shape('v5p-12288')).toEqual([6144, 1536, 1536, 4]);
    expect(shape('v6e-256')).toEqual([256, 64, 64, 4]);
  });

  it('gives single-VM shapes to small v5litepod and v6e slices', () => {
    for (const n of [1, 2, 4, 8]) expect(shape(`v5litepod-${n}`)).toEqual([n, 1, 1, n]);
    for (const n of [1, 4, 8]) expect(shape(`v6e-${n}`)).toEqual([n, 1, 1, n]);
  });

  it('keeps hosts and vm_count apart for v5litepod from 16 chips', () => {
    for (const n of [16, 32, 64, 128, 256]) {
      const t = getTpuTopology(`v5litepod-${n}`);
      expect(t.hosts).toBe(n / 8);
      expect(t.vmCount).toBe(n / 4);
    }
  });

  it('normalises v5e and case to the canonical name', () => {
    expect(getTpuTopology('v5e-16').name).toBe('v5litepod-16');
    expect(getTpuTopology(' V5E-16 ').name).toBe('v5litepod-16');
    expect(normalizeTpuVariant('V6E-8')).toBe('v6e-8');
  });

  it('rejects unknown variants with IRIS_INVALID_ARGUMENT', () => {
    for (const bad of ['v5litepod-3', 'v4-12', 'v5p-200', 'v7-8', 'tpu', '', 'v6e-2', 'v5p-12416']) {
      expect(() => getTpuTopology(bad)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
      expect(findTpuTopology(bad)).toBeUndefined();
    }
  });

  it('accepts every multiple of 128 for v5p up to 12288', () => {
    expect(getTpuTopology('v5p-384').chips).toBe(192);
    expect(getTpuTopology('v5p-64').vmCount).toBe(8);
  });
});

describe('tpuVariantName()', () => {
  it('maps the family aliases', () => {
    expect(tpuVariantName('v5e', 16)).toBe('v5litepod-16');
    expect(tpuVariantName('v4', 8)).toBe('v4-8');
    expect(tpuVariantName('v6e', 256)).toBe('v6e-256');
  });

  it('rejects an unknown family or size', () => {
    expect(() => tpuVariantName('v9', 8)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(() => tpuVariantName('v5e', 3)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});

describe('listTpuVariants()', () => {
  it('lists every row once, and filters by family', () => {
    const all = listTpuVariants();
    expect(new Set(all.map((t) => t.name)).size).toBe(all.length);
    expect(all).toHaveLength(10 + 9 + 100 + 8);
    expect(listTpuVariants('v5e').map((t) => t.name)).toEqual([
      'v5litepod-1', 'v5litepod-2', 'v5litepod-4', 'v5litepod-8',
      'v5litepod-16', 'v5litepod-32', 'v5litepod-64', 'v5litepod-128', 'v5litepod-256',
    ]);
    expect(listTpuVariants('v9')).toEqual([]);
  });

  it('keeps chips = vm_count × chips_per_vm for every row', () => {
    for (const t of listTpuVariants()) expect(t.vmCount * t.chipsPerVm).toBe(t.chips);
  });
});
