import { isRecord } from '@marin/rigging';
import type { EvalResultRow } from './api-types.js';
import { readSmallFile } from './experiment-access.js';

/** The eval step's results, in lm-eval's shape with Marin's field names, under its output path. */
export const EVAL_RESULTS_FILE = 'results.json';

/**
 * The rows of an eval step's `results.json`: per task (in the file's order), each numeric metric
 * `<metric>,<filter>` with its `<metric>_stderr,<filter>` (null when absent or lm-eval's "N/A");
 * keys without a filter (`alias`, `sample_len`) are not metrics.
 * The filter is kept in the metric's name only when it is not `none`.
 */
export function evalResultRows(doc: unknown): EvalResultRow[] {
  if (!isRecord(doc) || !isRecord(doc['results'])) return [];
  const rows: EvalResultRow[] = [];
  for (const [task, metrics] of Object.entries(doc['results'])) {
    if (!isRecord(metrics)) continue;
    for (const [key, value] of Object.entries(metrics)) {
      // lm-eval names every metric `<metric>,<filter>`; keys without a filter (`alias`, `sample_len`) are bookkeeping.
      const comma = key.indexOf(',');
      if (typeof value !== 'number' || comma < 0) continue;
      const metric = key.slice(0, comma);
      const filter = key.slice(comma + 1);
      if (metric.endsWith('_stderr')) continue;
      const stderr = metrics[`${metric}_stderr,${filter}`];
      rows.push({
        task,
        metric: filter === 'none' ? metric : `${metric} (${filter})`,
        value,
        stderr: typeof stderr === 'number' && Number.isFinite(stderr) ? stderr : null,
      });
    }
  }
  return rows;
}

/**
 * The results table of an eval step, or null when the output has no `results.json`.
 * A file that is not JSON gives no rows.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a file that is not regular or too large
 */
export async function readEvalResults(outputPath: string): Promise<EvalResultRow[] | null> {
  const text = await readSmallFile(`${outputPath.replace(/\/+$/, '')}/${EVAL_RESULTS_FILE}`, EVAL_RESULTS_FILE);
  if (text === null) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    try {
      // lm-eval may write NaN for an undefined stderr, which JSON.parse refuses.
      doc = JSON.parse(text.replace(/\bNaN\b|-?\bInfinity\b/g, 'null'));
    } catch {
      return [];
    }
  }
  return evalResultRows(doc);
}
