/** One record Levanter's `json_logger` tracker writes: hyperparameters, a step's metrics, a summary or the final summary. */
export type JsonLoggerRecord =
  | { event: 'hparams'; hparams: Record<string, unknown> }
  | { event: 'log'; step: number | null; metrics: Record<string, unknown> }
  | { event: 'summary'; metrics: Record<string, unknown> }
  | { event: 'finish'; summary: Record<string, unknown> }
  | { event: 'artifact'; path: string };

const LOGGER_NAME = 'levanter.json_logger';

/**
 * The `json_logger` records in Levanter's output, in order. Works on the job's own output lines and on
 * the log file Levanter writes under `trainer.log_dir` (both put the logger name before the JSON);
 * lines that are not records, or are cut short, are skipped.
 */
export function parseJsonLoggerRecords(lines: Iterable<string>): JsonLoggerRecord[] {
  const out: JsonLoggerRecord[] = [];
  for (const line of lines) {
    const at = line.indexOf(LOGGER_NAME);
    if (at < 0) continue;
    const brace = line.indexOf('{', at);
    if (brace < 0) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.slice(brace));
    } catch {
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null) continue;
    const record = parsed as Record<string, unknown>;
    if (record['tracker'] !== 'json_logger' || typeof record['event'] !== 'string') continue;
    out.push(record as unknown as JsonLoggerRecord);
  }
  return out;
}

// A Python exception line as a traceback ends: `ValueError: ...`, `draccus.utils.DecodingError: ...`.
const EXCEPTION_LINE = /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure)(?::\s.*)?$/;
// A line of Levanter's (glog-style) logging, which ends an exception message's continuation lines.
const LOG_LINE = /^[IWEFD]\d{8} /;
const MAX_CONTINUATION_LINES = 4;

/**
 * The exception Levanter's output ended with: the last line naming a Python exception plus its
 * continuation lines (draccus puts the underlying error on the next line), joined with spaces; else the
 * last non-blank line; else `null`.
 */
export function lastErrorLine(lines: readonly string[]): string | null {
  let lastNonBlank: string | null = null;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = (lines[i] ?? '').trim();
    if (line === '') continue;
    lastNonBlank ??= line;
    if (!EXCEPTION_LINE.test(line)) continue;
    const parts = [line];
    for (let j = i + 1; j < lines.length && parts.length <= MAX_CONTINUATION_LINES; j += 1) {
      const next = lines[j] ?? '';
      if (next.trim() === '' || LOG_LINE.test(next) || EXCEPTION_LINE.test(next.trim())) break;
      parts.push(next.trim());
    }
    return parts.join(' ');
  }
  return lastNonBlank;
}

/** The step Levanter resumed from in this output (`Resuming training from step N`), or `null` for a fresh start. */
export function resumedFromStep(lines: readonly string[]): number | null {
  for (const line of lines) {
    const m = /Resuming training from step (\d+)/.exec(line);
    if (m !== null) return Number(m[1]);
  }
  return null;
}
