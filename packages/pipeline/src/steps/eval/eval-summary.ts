import { coreTaskOf } from './core-tasks.js';
import type { EvalResults } from './eval-results.js';

// Numbers lm-eval and Levanter put beside the metrics of a task: its sample count, not a result.
const NOT_METRICS = new Set(['sample_len', 'sample_count']);

/** One row of the summary: a task's metric with its value and, when lm-eval computed one, its standard error. */
export interface EvalSummaryRow {
  task: string;
  /** The metric name; a filter other than lm-eval's `none` is appended in parentheses. */
  metric: string;
  value: number;
  stderr: number | null;
}

/**
 * The rows of an eval summary: every task of `results.json` (lm-eval tasks, then validation sets, as written),
 * each metric once with its standard error. A core task leads with its primary metric, then its other
 * metrics in lm-eval's order.
 */
export function evalSummaryRows(results: EvalResults): EvalSummaryRow[] {
  const rows: EvalSummaryRow[] = [];
  for (const [task, metrics] of Object.entries(results.results)) {
    const found: EvalSummaryRow[] = [];
    for (const [key, value] of Object.entries(metrics)) {
      const [metric = key, filter = 'none'] = key.split(',');
      if (typeof value !== 'number' || metric.endsWith('_stderr') || NOT_METRICS.has(metric)) continue;
      const stderr = metrics[`${metric}_stderr,${filter}`];
      found.push({ task, metric: filter === 'none' ? metric : `${metric} (${filter})`, value, stderr: typeof stderr === 'number' && Number.isFinite(stderr) ? stderr : null });
    }
    const order = (() => {
      const core = coreTaskOf(task);
      return core === undefined ? [] : [core.primary, ...core.metrics.filter((m) => m !== core.primary)];
    })();
    const rank = (m: string): number => (order.includes(m) ? order.indexOf(m) : order.length);
    rows.push(...found.map((row, i) => ({ row, i })).sort((a, b) => rank(a.row.metric) - rank(b.row.metric) || a.i - b.i).map(({ row }) => row));
  }
  return rows;
}

function number(x: number): string {
  return Math.abs(x) >= 1e5 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : x.toFixed(4);
}

/**
 * The one-screen summary printed at the end of an eval step: a title line, then `task  metric  value ± stderr`
 * aligned in columns, the task named once per group of its metrics.
 */
export function formatEvalSummary(results: EvalResults, title: string): string {
  const rows = evalSummaryRows(results);
  if (rows.length === 0) return `${title}: no results\n`;
  const taskWidth = Math.max(4, ...rows.map((r) => r.task.length));
  const metricWidth = Math.max(6, ...rows.map((r) => r.metric.length));
  const values = rows.map((r) => number(r.value));
  const valueWidth = Math.max(5, ...values.map((v) => v.length));
  const lines = [title, `${'task'.padEnd(taskWidth)}  ${'metric'.padEnd(metricWidth)}  ${'value'.padStart(valueWidth)}    stderr`];
  rows.forEach((r, i) => {
    const task = i > 0 && rows[i - 1]?.task === r.task ? '' : r.task;
    const stderr = r.stderr === null ? '' : ` ± ${number(r.stderr)}`;
    lines.push(`${task.padEnd(taskWidth)}  ${r.metric.padEnd(metricWidth)}  ${values[i]!.padStart(valueWidth)}${stderr}`.trimEnd());
  });
  return `${lines.join('\n')}\n`;
}
