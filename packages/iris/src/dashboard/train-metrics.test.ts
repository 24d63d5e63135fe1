import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downsample, parseTrainMetrics, readTrainMetrics } from './train-metrics.js';

let root = '';
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'iris-train-metrics-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('parseTrainMetrics', () => {
  it('reads the flat documented shape: train loss, each validation set, learning rate and tokens/s', () => {
    const text = [
      '{"step": 0, "loss/train": 6.9, "learning_rate": 0.001, "tokens_per_second": 1200}',
      '{"step": 1, "loss/train": 6.1, "learning_rate": 0.002, "tokens_per_second": 1300, "eval/web/loss": 6.5, "eval/web/bpb": 2.1, "eval/code/loss": 7.0}',
      '{"step": 2, "loss/train": 5.8',
      'not json at all',
      '{"no_step": true, "loss/train": 1}',
      '{"step": 1, "throughput/hook_time": 0.001}',
    ].join('\n');
    const m = parseTrainMetrics(text);
    expect(m.records).toBe(2);
    expect(m.trainLoss).toEqual([[0, 6.9], [1, 6.1]]);
    expect(m.learningRate).toEqual([[0, 0.001], [1, 0.002]]);
    expect(m.tokensPerSecond).toEqual([[0, 1200], [1, 1300]]);
    expect(Object.fromEntries(m.evalLoss)).toEqual({ web: [[1, 6.5]], code: [[1, 7.0]] });
    expect(Object.fromEntries(m.evalBpb)).toEqual({ web: [[1, 2.1]] });
  });

  it("reads Levanter's json_logger records, alone on a line or after the logger name in Levanter's log", () => {
    const text = [
      '{"tracker": "json_logger", "event": "log", "step": 3, "metrics": {"train/loss": 5.5, "optim/learning_rate": 0.003, "throughput/tokens_per_second": 900.5}}',
      '2026-11-26T02:40:26 - 0 - levanter.json_logger - json_logger.py:80 - INFO :: {"tracker": "json_logger", "event": "log", "step": 4, "metrics": {"train": {"loss": 5.2}, "eval/loss": 5.9, "eval/bpb": 1.8}}',
      'I20261126 02:39:22 1 levanter.json_logger {"tracker": "json_logger", "event": "hparams", "hparams": {"step": 1}}',
      'I20261126 02:39:22 1 levanter.json_logger {"tracker": "json_logger", "event": "finish", "summary": {"train/loss": 1}}',
    ].join('\n');
    const m = parseTrainMetrics(text);
    expect(m.records).toBe(2);
    expect(m.trainLoss).toEqual([[3, 5.5], [4, 5.2]]);
    expect(m.learningRate).toEqual([[3, 0.003]]);
    expect(m.tokensPerSecond).toEqual([[3, 900.5]]);
    expect(Object.fromEntries(m.evalLoss)).toEqual({ validation: [[4, 5.9]] });
    expect(Object.fromEntries(m.evalBpb)).toEqual({ validation: [[4, 1.8]] });
  });
});

describe('readTrainMetrics on validation sets', () => {
  it('leaves out the untagged eval/loss when it repeats the only validation set, keeps it otherwise', async () => {
    const one = join(root, 'one-abc123');
    mkdirSync(one);
    writeFileSync(join(one, 'metrics.jsonl'), '{"step": 10, "eval/loss": 6.338519096374512, "eval/web/loss": 6.33851957321167, "eval/bpb": 2, "eval/web/bpb": 2}\n');
    const m1 = await readTrainMetrics(one);
    expect(Object.keys(m1!.evalLoss)).toEqual(['web']);
    expect(Object.keys(m1!.evalBpb)).toEqual(['web']);
    const two = join(root, 'two-abc123');
    mkdirSync(two);
    writeFileSync(join(two, 'metrics.jsonl'), '{"step": 10, "eval/loss": 5.5, "eval/web/loss": 5, "eval/code/loss": 6}\n');
    expect(Object.keys((await readTrainMetrics(two))!.evalLoss)).toEqual(['code', 'validation', 'web']);
  });
});

describe('downsample', () => {
  it('keeps short series whole, sorted by step, with the last value of a repeated step', () => {
    expect(downsample([[2, 1], [0, 3], [1, 2], [2, 5]])).toEqual({ points: [[0, 3], [1, 2], [2, 5]], total: 3 });
  });

  it('cuts 10,000 points to at most 1,000, keeping the ends and a spike', () => {
    const points: [number, number][] = Array.from({ length: 10_000 }, (_, i) => [i, 10 - i / 1000]);
    points[5_123] = [5_123, 99];
    const d = downsample(points);
    expect(d.total).toBe(10_000);
    expect(d.points.length).toBeLessThanOrEqual(1000);
    expect(d.points.length).toBeGreaterThan(900);
    expect(d.points[0]).toEqual([0, 10]);
    expect(d.points[d.points.length - 1]).toEqual([9_999, 10 - 9_999 / 1000]);
    expect(d.points).toContainEqual([5_123, 99]);
    const steps = d.points.map((p) => p[0]);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
  });
});

describe('readTrainMetrics', () => {
  it("reads the pipeline's metrics/metrics.jsonl first, one point per step with the last record of a resumed run winning", async () => {
    const out = mkdtempSync(join(tmpdir(), 'train-metrics-pipeline-'));
    mkdirSync(join(out, 'metrics'));
    const rec = (step: number, loss: number) => JSON.stringify({ step, time: 1, metrics: { 'train/loss': loss, 'optim/learning_rate': 0.001, 'eval/offline/gazetteer/loss': 5 } });
    writeFileSync(join(out, 'metrics', 'metrics.jsonl'), [rec(0, 9), rec(1, 8), rec(2, 7), rec(1, 6), rec(2, 5), rec(3, 4)].join('\n') + '\n');
    writeFileSync(join(out, 'metrics.jsonl'), '{"step": 0, "loss/train": 100}\n');
    const view = await readTrainMetrics(out);
    expect(view).toMatchObject({ file: 'metrics/metrics.jsonl', trainLoss: { points: [[0, 9], [1, 6], [2, 5], [3, 4]] } });
    expect(Object.keys(view!.evalLoss)).toEqual(['offline/gazetteer']);
    rmSync(out, { recursive: true, force: true });
  });

  it("prefers metrics.jsonl, falls back to Levanter's log file, and is null when neither holds records", async () => {
    const both = join(root, 'both-abc123');
    mkdirSync(join(both, 'logs'), { recursive: true });
    writeFileSync(join(both, 'metrics.jsonl'), '{"step": 0, "loss/train": 2}\n');
    writeFileSync(join(both, 'logs', 'both-abc123.log.log'), 'x levanter.json_logger {"tracker": "json_logger", "event": "log", "step": 0, "metrics": {"train/loss": 9}}\n');
    expect(await readTrainMetrics(both)).toMatchObject({ file: 'metrics.jsonl', trainLoss: { points: [[0, 2]] } });

    const logOnly = join(root, 'log-only-abc123');
    mkdirSync(join(logOnly, 'logs'), { recursive: true });
    writeFileSync(join(logOnly, 'logs', 'log-only-abc123.log.log'), 'x levanter.json_logger {"tracker": "json_logger", "event": "log", "step": 7, "metrics": {"train/loss": 9}}\n');
    expect(await readTrainMetrics(logOnly)).toMatchObject({ file: 'logs/log-only-abc123.log.log', lastStep: 7 });

    const none = join(root, 'none-abc123');
    mkdirSync(none);
    writeFileSync(join(none, 'metrics.jsonl'), 'garbage\n');
    expect(await readTrainMetrics(none)).toBeNull();
    expect(await readTrainMetrics(join(root, 'missing'))).toBeNull();
  });
});
