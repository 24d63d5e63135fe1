import { describe, expect, it } from 'vitest';
import { TrainProgress, formatSeconds, formatTrainStatus } from './train-progress.js';

describe('TrainProgress', () => {
  it('shows steps done, the last loss and throughput, and the time left at the rate seen so far', () => {
    const p = new TrainProgress(20);
    expect(p.status()).toBeNull();
    p.add([{ step: 0, time: 100, metrics: { 'throughput/loading_time': 1.6 } }]);
    expect(formatTrainStatus(p.status()!)).toBe('step 1/20 · ETA ?');
    // Step 1 took 45 s (compilation): until later steps are seen it is all the rate there is.
    p.add([{ step: 1, time: 145, metrics: {} }]);
    expect(p.status()?.etaSeconds).toBe(18 * 45);
    p.add([
      { step: 2, time: 146, metrics: { 'train/loss': 7.2244, 'throughput/tokens_per_second': 6087.7 } },
      { step: 3, time: 147, metrics: { 'train/loss': 7.0983, 'throughput/tokens_per_second': 6103.3 } },
    ]);
    expect(p.status()).toEqual({ done: 4, total: 20, loss: 7.0983, tokensPerSecond: 6103.3, etaSeconds: 16 });
    expect(formatTrainStatus(p.status()!)).toBe('step 4/20 · loss 7.098 · 6.1k tok/s · ETA 16s');
    p.add([{ step: 19, time: 163, metrics: { 'train/loss': 6.1 } }]);
    expect(formatTrainStatus(p.status()!)).toBe('step 20/20 · loss 6.100 · 6.1k tok/s · ETA 0s');
  });

  it('measures the rate over the last ten steps', () => {
    const p = new TrainProgress(100);
    // Ten steps at 1 s, then ten at 2 s: the time left is at 2 s a step.
    for (let step = 0; step < 30; step += 1) p.add([{ step, time: step < 20 ? step : 19 + (step - 19) * 2, metrics: {} }]);
    expect(p.status()?.etaSeconds).toBe(70 * 2);
  });

  it('formats durations', () => {
    expect(formatSeconds(41.4)).toBe('41s');
    expect(formatSeconds(185)).toBe('3m05s');
    expect(formatSeconds(3720)).toBe('1h02m');
  });
});
