import { describe, expect, it } from 'vitest';
import type { JsonLoggerRecord } from '../../levanter/levanter-log.js';
import { summarizeTrainRecords, trackerMetricsLine } from './train-summary.js';

const log = (step: number, metrics: Record<string, unknown>): JsonLoggerRecord => ({ event: 'log', step, metrics });

describe('summarizeTrainRecords()', () => {
  it('takes the first and last train loss, the last throughput and the last eval metrics', () => {
    const records: JsonLoggerRecord[] = [
      { event: 'hparams', hparams: { trainer: {} } },
      { event: 'summary', metrics: { parameter_count: 98464 } },
      log(2, { 'train/loss': 7.2 }),
      log(2, { 'throughput/tokens_per_second': 100 }),
      log(9, { 'eval/loss': 6.5, 'eval/bpb': 4.9, 'eval/quickstart/bpb': 4.9, 'eval/loading_time': 0.1 }),
      log(19, { 'train/loss': 6.0 }),
      log(19, { 'throughput/tokens_per_second': 14000, 'eval/bpb': 4.5 }),
    ];
    expect(summarizeTrainRecords(records)).toEqual({
      final_loss: 6.0,
      first_loss: 7.2,
      first_loss_step: 2,
      final_step: 19,
      tokens_per_second: 14000,
      parameter_count: 98464,
      eval: { 'eval/loss': 6.5, 'eval/bpb': 4.5, 'eval/quickstart/bpb': 4.9 },
    });
  });

  it('is null when no loss was logged', () => {
    expect(summarizeTrainRecords([log(0, { 'throughput/hook_time': 1 })])).toBeNull();
  });
});

describe('trackerMetricsLine()', () => {
  it('pairs the run config with the final summary', () => {
    const line = trackerMetricsLine([{ event: 'hparams', hparams: { trainer: { id: 'r' } } }, { event: 'finish', summary: { 'train/loss': 6 } }]);
    expect(JSON.parse(line ?? 'null')).toEqual({ config: { trainer: { id: 'r' } }, summary: { 'train/loss': 6 } });
    expect(trackerMetricsLine([])).toBeNull();
  });
});
