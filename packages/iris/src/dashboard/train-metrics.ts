import { isRecord } from '@marin/rigging';
import type { MetricSeries, TrainMetricsView } from './api-types.js';
import { readSmallFile } from './experiment-access.js';

/**
 * The one place that knows where a train step's per-step metrics live and what a record looks like.
 *
 * Files, under the step's output path, first found wins:
 *   0. `metrics/metrics.jsonl`: what the pipeline's Levanter jobs write, one record per step,
 *      `{"step": 12, "time": …, "metrics": {"train/loss": …, "optim/learning_rate": …, …}}` (a resumed run
 *      appends, so a step may repeat: the last record of a step wins).
 *   1. `metrics.jsonl`: one JSON object per line. Either flat, `{"step": 12, "loss/train": 3.1,
 *      "eval/<tag>/loss": …, "eval/<tag>/bpb": …, "learning_rate": …, "tokens_per_second": …}`, or one
 *      record of Levanter's `json_logger` tracker, `{"tracker": "json_logger", "event": "log", "step": 12,
 *      "metrics": {"train/loss": …, "optim/learning_rate": …, "throughput/tokens_per_second": …}}`.
 *   2. `logs/<run id>.log.log`: Levanter's own log file (run id = the output's last segment), whose
 *      `levanter.json_logger` lines carry the same records after the logger name.
 * Keys (after flattening nested `metrics` objects with `/`): train loss `loss/train` or `train/loss`;
 * learning rate `learning_rate` or `optim/learning_rate`; throughput `tokens_per_second` or
 * `throughput/tokens_per_second`; validation `eval/<tag>/loss` and `eval/<tag>/bpb` (`eval/loss`,
 * `eval/bpb` are the untagged validation set, shown as `validation`). Anything else is ignored.
 */
export const METRICS_FILE = 'metrics.jsonl';
/** Where the pipeline's Levanter jobs write their per-step records. */
export const PIPELINE_METRICS_FILE = 'metrics/metrics.jsonl';
const LEVANTER_LOGGER = 'levanter.json_logger';

/** Largest metrics file read: 10,000 steps of Levanter's records are about 10 MB. */
export const METRICS_MAX_BYTES = 64 * 1024 * 1024;
/** How long reading it may take (a bucket object of 64 MB included). */
const METRICS_READ_TIMEOUT_MS = 15_000;
/** Points per series sent to the page; longer series are downsampled keeping each bucket's min and max. */
export const MAX_POINTS = 1000;

const TRAIN_LOSS = ['loss/train', 'train/loss'];
const LEARNING_RATE = ['learning_rate', 'optim/learning_rate'];
const TOKENS_PER_SECOND = ['tokens_per_second', 'throughput/tokens_per_second'];
const EVAL_KEY = /^eval\/(?:(.+)\/)?(loss|bpb)$/;

function join(base: string, name: string): string {
  return `${base.replace(/\/+$/, '')}/${name}`;
}

function flattenInto(value: Record<string, unknown>, prefix: string, out: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(value)) {
    const key = prefix === '' ? k : `${prefix}/${k}`;
    if (isRecord(v)) flattenInto(v, key, out);
    else out[key] = v;
  }
}

/** Every key drawn contains one of these, so a line with none of them is skipped without parsing it. */
const DRAWN = /loss|learning_rate|tokens_per_second|bpb/;

/** One line's step and flat metrics, or null for a line that is not a per-step record or holds nothing drawn. */
function recordOf(line: string): { step: number; metrics: Record<string, unknown> } | null {
  if (!DRAWN.test(line)) return null;
  let text = line;
  const logger = line.indexOf(LEVANTER_LOGGER);
  if (logger >= 0) text = line.slice(line.indexOf('{', logger));
  else if (!line.startsWith('{')) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(doc) || typeof doc['step'] !== 'number' || !Number.isFinite(doc['step'])) return null;
  const metrics: Record<string, unknown> = {};
  if (doc['tracker'] === 'json_logger') {
    if (doc['event'] !== 'log' || !isRecord(doc['metrics'])) return null;
    flattenInto(doc['metrics'], '', metrics);
  } else if (isRecord(doc['metrics'])) flattenInto(doc['metrics'], '', metrics);
  else flattenInto(doc, '', metrics);
  return { step: doc['step'], metrics };
}

function firstNumber(metrics: Record<string, unknown>, keys: readonly string[]): number | null {
  for (const k of keys) {
    const v = metrics[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return null;
}

/** Raw (not downsampled) series of one metrics text, each `[step, value]` in file order. */
export interface RawTrainMetrics {
  trainLoss: [number, number][];
  learningRate: [number, number][];
  tokensPerSecond: [number, number][];
  evalLoss: Map<string, [number, number][]>;
  evalBpb: Map<string, [number, number][]>;
  records: number;
}

/** Parses a metrics file's text (either accepted shape, or Levanter's log); torn and foreign lines are skipped. */
export function parseTrainMetrics(text: string): RawTrainMetrics {
  const out: RawTrainMetrics = { trainLoss: [], learningRate: [], tokensPerSecond: [], evalLoss: new Map(), evalBpb: new Map(), records: 0 };
  const push = (series: [number, number][], step: number, v: number | null) => {
    if (v !== null) series.push([step, v]);
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const r = recordOf(line);
    if (r === null) continue;
    out.records++;
    push(out.trainLoss, r.step, firstNumber(r.metrics, TRAIN_LOSS));
    push(out.learningRate, r.step, firstNumber(r.metrics, LEARNING_RATE));
    push(out.tokensPerSecond, r.step, firstNumber(r.metrics, TOKENS_PER_SECOND));
    for (const [key, v] of Object.entries(r.metrics)) {
      if (!key.startsWith('eval/')) continue;
      const m = EVAL_KEY.exec(key);
      if (m === null || typeof v !== 'number' || !Number.isFinite(v)) continue;
      const tag = m[1] ?? 'validation';
      const map = m[2] === 'loss' ? out.evalLoss : out.evalBpb;
      const series = map.get(tag) ?? [];
      series.push([r.step, v]);
      map.set(tag, series);
    }
  }
  out.trainLoss = lastPerStep(out.trainLoss);
  out.learningRate = lastPerStep(out.learningRate);
  out.tokensPerSecond = lastPerStep(out.tokensPerSecond);
  for (const map of [out.evalLoss, out.evalBpb]) for (const [tag, series] of map) map.set(tag, lastPerStep(series));
  return out;
}

/** A series in step order with one point per step, the last one written (a resumed run rewrites the steps after its checkpoint). */
function lastPerStep(series: [number, number][]): [number, number][] {
  const byStep = new Map<number, number>();
  for (const [step, v] of series) byStep.set(step, v);
  return [...byStep].sort((a, b) => a[0] - b[0]);
}

/**
 * At most `maxPoints` points of a series in step order: the series is cut into `maxPoints / 2` buckets of
 * consecutive points and each bucket keeps its lowest and highest value (in step order), so spikes survive;
 * the first and last points are always kept. A resumed run's repeated steps keep their last value.
 */
export function downsample(points: readonly [number, number][], maxPoints = MAX_POINTS): MetricSeries {
  const byStep = new Map<number, number>();
  for (const [s, v] of points) byStep.set(s, v);
  const sorted = [...byStep].sort((a, b) => a[0] - b[0]);
  const total = sorted.length;
  if (total <= maxPoints) return { points: sorted, total };
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  const size = total / buckets;
  const kept: [number, number][] = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor(b * size);
    const to = Math.min(total, Math.floor((b + 1) * size));
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i++) {
      if (sorted[i]![1] < sorted[lo]![1]) lo = i;
      if (sorted[i]![1] > sorted[hi]![1]) hi = i;
    }
    for (const i of lo <= hi ? [lo, hi] : [hi, lo]) if (kept.length === 0 || kept[kept.length - 1] !== sorted[i]) kept.push(sorted[i]!);
  }
  if (kept[0] !== sorted[0]) kept.unshift(sorted[0]!);
  if (kept[kept.length - 1] !== sorted[total - 1]) kept.push(sorted[total - 1]!);
  return { points: kept, total };
}

/** Same steps and values within float32 rounding (Levanter computes the average and the set's loss apart). */
function sameSeries(a: readonly [number, number][], b: readonly [number, number][]): boolean {
  return a.length === b.length && a.every(([s, v], i) => s === b[i]![0] && Math.abs(v - b[i]![1]) <= 1e-5 * Math.max(1, Math.abs(v)));
}

/**
 * Each validation set's series; the untagged one (`eval/loss`, Levanter's average over the sets) is left
 * out when it repeats a tagged set point for point (within float32 rounding), as it does with a single
 * validation set.
 */
function downsampleAll(map: Map<string, [number, number][]>): Record<string, MetricSeries> {
  const out: Record<string, MetricSeries> = {};
  const untagged = map.get('validation');
  const repeated = untagged !== undefined && [...map].some(([tag, s]) => tag !== 'validation' && sameSeries(s, untagged));
  for (const tag of [...map.keys()].sort()) if (!(repeated && tag === 'validation')) out[tag] = downsample(map.get(tag)!);
  return out;
}

/** The files tried for a step's metrics, in order, as `[url, name relative to the output]`. */
export function metricsCandidates(outputPath: string): [string, string][] {
  const runId = outputPath.replace(/\/+$/, '').split('/').pop() ?? '';
  return [
    [join(outputPath, PIPELINE_METRICS_FILE), PIPELINE_METRICS_FILE],
    [join(outputPath, METRICS_FILE), METRICS_FILE],
    [join(outputPath, `logs/${runId}.log.log`), `logs/${runId}.log.log`],
  ];
}

/**
 * A train step's metrics over steps, downsampled for charts; null when none of the candidate files
 * exists or none holds a per-step record.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a file that is not regular or larger than 64 MiB;
 *   IRIS_DEADLINE_EXCEEDED when reading it takes longer than 15 s
 */
export async function readTrainMetrics(outputPath: string): Promise<TrainMetricsView | null> {
  for (const [url, name] of metricsCandidates(outputPath)) {
    const text = await readSmallFile(url, name, { maxBytes: METRICS_MAX_BYTES, timeoutMs: METRICS_READ_TIMEOUT_MS });
    if (text === null) continue;
    const raw = parseTrainMetrics(text);
    if (raw.records === 0) continue;
    const last = raw.trainLoss[raw.trainLoss.length - 1];
    return {
      file: name,
      records: raw.records,
      lastStep: last === undefined ? null : last[0],
      trainLoss: downsample(raw.trainLoss),
      learningRate: downsample(raw.learningRate),
      tokensPerSecond: downsample(raw.tokensPerSecond),
      evalLoss: downsampleAll(raw.evalLoss),
      evalBpb: downsampleAll(raw.evalBpb),
    };
  }
  return null;
}
