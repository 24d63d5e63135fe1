import type { MetricsRecord } from './levanter-metrics.js';

/** What a training run's status line shows. */
export interface TrainStatus {
  /** Steps finished (Levanter's step number + 1). */
  done: number;
  total: number;
  /** The last training loss, or `null` before the first one. */
  loss: number | null;
  /** The last measured throughput, or `null` before the first one. */
  tokensPerSecond: number | null;
  /** Seconds left at the rate of the steps seen so far, or `null` with fewer than two steps seen. */
  etaSeconds: number | null;
}

/** Steps whose records the rate is measured over. */
const RATE_WINDOW = 10;
/** Levanter's first steps include compiling the train step: their times say nothing of the rate. */
const WARMUP_STEPS = 2;

/**
 * Follows a training run through its metrics records (in the order they were written) and says where it
 * is: steps done of `totalSteps`, the last loss and throughput, and the time left at the rate of the last
 * few steps (not counting the first two of the run, which include compilation, once later ones are seen).
 */
export class TrainProgress {
  private readonly points: { step: number; time: number }[] = [];
  private first: { step: number; time: number } | null = null;
  private last: { step: number; time: number } | null = null;
  private loss: number | null = null;
  private tokensPerSecond: number | null = null;

  constructor(readonly totalSteps: number) {}

  add(records: readonly MetricsRecord[]): void {
    for (const r of records) {
      this.first ??= { step: r.step, time: r.time };
      if (this.last === null || r.step >= this.last.step) {
        this.last = { step: r.step, time: r.time };
        this.points.push(this.last);
        if (this.points.length > RATE_WINDOW + 1) this.points.shift();
      }
      const loss = r.metrics['train/loss'];
      if (loss !== undefined) this.loss = loss;
      const tps = r.metrics['throughput/tokens_per_second'];
      if (tps !== undefined) this.tokensPerSecond = tps;
    }
  }

  /** Where the run is, or `null` before the first record. */
  status(): TrainStatus | null {
    if (this.first === null || this.last === null) return null;
    const done = Math.min(this.last.step + 1, this.totalSteps);
    const settled = this.points.filter((p) => p.step >= (this.first?.step ?? 0) + WARMUP_STEPS - 1);
    const from = settled.length >= 2 ? settled[0]! : this.points[0]!;
    const steps = this.last.step - from.step;
    const seconds = this.last.time - from.time;
    const etaSeconds = steps > 0 && seconds > 0 ? Math.max(0, ((this.totalSteps - done) * seconds) / steps) : null;
    return { done, total: this.totalSteps, loss: this.loss, tokensPerSecond: this.tokensPerSecond, etaSeconds };
  }
}

/** `step 12/20 · loss 5.832 · 6.1k tok/s · ETA 41s` (a part not known yet is left out; ETA `?`). */
export function formatTrainStatus(s: TrainStatus): string {
  const parts = [`step ${s.done}/${s.total}`];
  if (s.loss !== null) parts.push(`loss ${s.loss.toFixed(3)}`);
  if (s.tokensPerSecond !== null) parts.push(`${formatRate(s.tokensPerSecond)} tok/s`);
  parts.push(`ETA ${s.etaSeconds === null ? '?' : formatSeconds(s.etaSeconds)}`);
  return parts.join(' · ');
}

function formatRate(n: number): string {
  if (n < 1000) return n.toFixed(0);
  if (n < 1e6) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

/** `41s`, `3m05s`, `1h02m`. */
export function formatSeconds(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
