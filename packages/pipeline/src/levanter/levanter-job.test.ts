import { describe, expect, it } from 'vitest';
import { jobArgs } from './levanter-job.js';

const progress = (level: 'quiet' | 'normal' | 'verbose') => ({ level, status: () => {}, note: () => {} });

describe('jobArgs()', () => {
  it('runs the command through levanter_job.py, with plain paths, the metrics file when asked and --echo only at verbose', () => {
    const args = ['-m', 'levanter.main.train_lm', '--config_path', '/o/levanter_config.yaml'];
    expect(jobArgs({ args, logPath: 'file:///o/logs/train.log', metricsPath: '/o/metrics/metrics.jsonl', progress: progress('normal') })).toEqual([
      'levanter_job.py', '--output-log', '/o/logs/train.log', '--metrics', '/o/metrics/metrics.jsonl', '--', ...args,
    ]);
    expect(jobArgs({ args, logPath: 'gs://b/o/logs/eval.log', progress: progress('verbose') })).toEqual(['levanter_job.py', '--output-log', 'gs://b/o/logs/eval.log', '--echo', '--', ...args]);
    expect(jobArgs({ args, logPath: '/o/x.log' })).toEqual(['levanter_job.py', '--output-log', '/o/x.log', '--', ...args]);
  });
});
