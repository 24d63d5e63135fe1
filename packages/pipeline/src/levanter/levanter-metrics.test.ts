import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MetricsTail, metricsPathOf, parseMetricsRecords } from './levanter-metrics.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('parseMetricsRecords()', () => {
  it('reads one record per line, keeps numbers only and skips what is not a record', () => {
    const text = [
      '{"step": 2, "time": 1764124758.412, "metrics": {"train/loss": 7.22, "throughput/tokens_per_second": 6087.7, "note": "x"}}',
      'not json',
      '{"step": "3", "time": 1, "metrics": {}}',
      '{"step": 3, "time": 1764124758.5, "metrics": {"eval/quickstart/bpb": 4.79}}',
      '{"step": 4, "time": 17641',
    ].join('\n');
    expect(parseMetricsRecords(text)).toEqual([
      { step: 2, time: 1764124758.412, metrics: { 'train/loss': 7.22, 'throughput/tokens_per_second': 6087.7 } },
      { step: 3, time: 1764124758.5, metrics: { 'eval/quickstart/bpb': 4.79 } },
    ]);
  });

  it('puts the file under the output', () => {
    expect(metricsPathOf('gs://b/checkpoints/run-1/')).toBe('gs://b/checkpoints/run-1/metrics/metrics.jsonl');
  });
});

describe('MetricsTail', () => {
  it('returns what was appended since the last read and waits for a line still being written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'metrics-tail-'));
    dirs.push(dir);
    const path = join(dir, 'metrics.jsonl');
    const tail = new MetricsTail(path);
    expect(await tail.read()).toEqual([]);
    await writeFile(path, '{"step": 0, "time": 1, "metrics": {"train/loss": 7}}\n{"step": 1, "time": 2, "met');
    expect((await tail.read()).map((r) => r.step)).toEqual([0]);
    await appendFile(path, 'rics": {"train/loss": 6.5, "tag/é": 1}}\n');
    expect(await tail.read()).toEqual([{ step: 1, time: 2, metrics: { 'train/loss': 6.5, 'tag/é': 1 } }]);
    expect(await tail.read()).toEqual([]);
  });
});
