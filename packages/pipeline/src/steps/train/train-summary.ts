import type { JsonLoggerRecord } from '../../levanter/levanter-log.js';

/** `train_summary.json`: what a finished train step reports, read from what Levanter logged. */
export interface TrainSummary {
  /** Levanter's run id (the basename of the output). */
  run_id: string;
  /** `train/loss` of the last step. */
  final_loss: number;
  /** The first `train/loss` Levanter logged for this run (across resumed attempts). */
  first_loss: number;
  /** The step of `first_loss`. */
  first_loss_step: number;
  /** The last (0-based) step trained; `num_train_steps - 1` for a complete run. */
  final_step: number;
  num_train_steps: number;
  /** Throughput of the last step. */
  tokens_per_second: number | null;
  parameter_count: number | null;
  /** The step the last attempt resumed from (a rerun after a killed job), `null` when it started fresh. */
  resumed_from_step: number | null;
  /** Validation metrics of the last evaluation: `eval/loss`, `eval/bpb`, `eval/<tag>/loss`, `eval/<tag>/bpb`. */
  eval: Record<string, number>;
  paths: {
    config: string;
    checkpoints: string;
    hf: string;
    /** The newest Hugging Face export, `<hf>/step-N`, or `null` when exports are off. */
    latest_hf: string | null;
    log: string;
  };
}

/** The numbers of a {@link TrainSummary} that come from Levanter's tracker records. */
export type TrainMetrics = Pick<TrainSummary, 'final_loss' | 'first_loss' | 'first_loss_step' | 'final_step' | 'tokens_per_second' | 'parameter_count' | 'eval'>;

const EVAL_METRIC = /^eval\/(?:.+\/)?(?:loss|bpb)$/;

function num(x: unknown): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

/**
 * Reads the training metrics from Levanter's `json_logger` records, oldest first; the records of
 * resumed attempts follow those of earlier ones, so the first loss is the run's first.
 * @returns `null` when no `train/loss` was logged
 */
export function summarizeTrainRecords(records: readonly JsonLoggerRecord[]): TrainMetrics | null {
  let first: { loss: number; step: number } | null = null;
  let last: { loss: number; step: number } | null = null;
  let tokensPerSecond: number | null = null;
  let parameterCount: number | null = null;
  const evalMetrics: Record<string, number> = {};
  for (const r of records) {
    if (r.event === 'log') {
      const loss = num(r.metrics['train/loss']);
      const step = num(r.step);
      if (loss !== null && step !== null) {
        first ??= { loss, step };
        last = { loss, step };
      }
      tokensPerSecond = num(r.metrics['throughput/tokens_per_second']) ?? tokensPerSecond;
      for (const [key, value] of Object.entries(r.metrics)) {
        const v = num(value);
        if (v !== null && EVAL_METRIC.test(key)) evalMetrics[key] = v;
      }
    } else if (r.event === 'summary') {
      parameterCount = num(r.metrics['parameter_count']) ?? parameterCount;
    }
  }
  if (first === null || last === null) return null;
  return {
    final_loss: last.loss,
    first_loss: first.loss,
    first_loss_step: first.step,
    final_step: last.step,
    tokens_per_second: tokensPerSecond,
    parameter_count: parameterCount,
    eval: evalMetrics,
  };
}

/**
 * Marin's `tracker_metrics.jsonl` line (`{"config", "summary"}`), as W&B's replicate writes it, from the
 * `json_logger` records: the run's config and the final summary. `null` without a finish record.
 */
export function trackerMetricsLine(records: readonly JsonLoggerRecord[]): string | null {
  let config: Record<string, unknown> | null = null;
  let summary: Record<string, unknown> | null = null;
  for (const r of records) {
    if (r.event === 'hparams' && 'trainer' in r.hparams) config = r.hparams;
    if (r.event === 'finish') summary = r.summary;
  }
  return summary === null ? null : `${JSON.stringify({ config: config ?? {}, summary })}\n`;
}
