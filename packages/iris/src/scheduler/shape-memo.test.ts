import { describe, expect, it } from 'vitest';
import type { JobCandidates } from './job-candidates.js';
import { ShapeMemo } from './shape-memo.js';
import type { ResourceAmounts } from './types.js';

const candidates = (): JobCandidates => ({
  required: [],
  mask: new Uint8Array(0),
  order: new Int32Array(0),
  score: new Int32Array(0),
  tiers: Int32Array.from([0, 0]),
  taintExcluded: new Uint8Array(0),
});

const shape = (cpu: number, memory: number, gpu = 0, tpu = 0): ResourceAmounts => ({ cpuMillicores: cpu, memoryBytes: memory, gpuCount: gpu, tpuChips: tpu });

describe('ShapeMemo', () => {
  it('gives one value per (candidate set, four amounts), whatever object carries the amounts', () => {
    let made = 0;
    const memo = new ShapeMemo(() => ({ id: (made += 1) }));
    const a = candidates();
    const b = candidates();
    const first = memo.get(a, shape(1000, 2 ** 31));
    expect(memo.get(a, shape(1000, 2 ** 31))).toBe(first);
    const others = [memo.get(b, shape(1000, 2 ** 31)), memo.get(a, shape(2000, 2 ** 31)), memo.get(a, shape(1000, 2 ** 30)), memo.get(a, shape(1000, 2 ** 31, 1)), memo.get(a, shape(1000, 2 ** 31, 0, 4))];
    expect(new Set([first, ...others]).size).toBe(6);
    expect(made).toBe(6);
  });
});
