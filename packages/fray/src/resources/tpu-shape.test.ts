import { getTpuTopology } from '@marin/iris/core';
import { describe, expect, it } from 'vitest';
import { ResourceConfig } from './resource-config.js';
import { resolvedTpuAlternatives, resolvedTpuShape, tpuShapeOf } from './tpu-shape.js';

describe('TPU rows resolved once by ResourceConfig', () => {
  it('carries the row of its device and alternatives through with() and toOptions()', () => {
    const rc = ResourceConfig.withTpu(['v5e-16', 'v6e-16', 'V6E-16']);
    expect(resolvedTpuShape(rc.device)).toBe(getTpuTopology('v5litepod-16'));
    expect(resolvedTpuAlternatives(rc.deviceAlternatives)).toEqual([getTpuTopology('v6e-16')]);
    const derived = rc.with({ cpu: 2 });
    expect(resolvedTpuShape(derived.device)).toBe(getTpuTopology('v5litepod-16'));
    expect(resolvedTpuAlternatives(derived.deviceAlternatives)).toEqual([getTpuTopology('v6e-16')]);
    expect(new ResourceConfig(rc.toOptions()).chipCount()).toBe(16);
  });

  it('looks up a hand-written device once, and rejects an unknown one with FRAY_INVALID_ARGUMENT', () => {
    expect(tpuShapeOf({ kind: 'tpu', variant: 'v5e-8' })).toBe(getTpuTopology('v5litepod-8'));
    expect(resolvedTpuShape({ kind: 'tpu', variant: 'v5litepod-8' })).toBeUndefined();
    expect(() => tpuShapeOf({ kind: 'tpu', variant: 'v5litepod-3' })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });
});
