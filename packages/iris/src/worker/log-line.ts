/** Log severities, numerically ordered so `min_level` filters are a comparison. */
export const LOG_LEVELS = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40, CRITICAL: 50 } as const;

/** A numeric log level (`10`, `20`, …, `50`). */
export type LogLevel = (typeof LOG_LEVELS)[keyof typeof LOG_LEVELS];

/** Where a log line came from. */
export type LogSource = 'stdout' | 'stderr' | 'build' | 'system';

/** Longest log line stored as one entry; longer lines are split. */
export const MAX_LOG_LINE_BYTES = 64 * 1024;

const TOKEN_LEVELS: Record<string, LogLevel> = {
  DEBUG: LOG_LEVELS.DEBUG,
  INFO: LOG_LEVELS.INFO,
  WARN: LOG_LEVELS.WARNING,
  WARNING: LOG_LEVELS.WARNING,
  ERROR: LOG_LEVELS.ERROR,
  CRITICAL: LOG_LEVELS.CRITICAL,
  FATAL: LOG_LEVELS.CRITICAL,
};

// glog prefixes: one severity letter followed by the date, e.g. `I20260306 12:00:00.000 …`.
const GLOG_LEVELS: Record<string, LogLevel> = {
  I: LOG_LEVELS.INFO,
  W: LOG_LEVELS.WARNING,
  E: LOG_LEVELS.ERROR,
  F: LOG_LEVELS.CRITICAL,
};

/**
 * Reads the level of one log line from its leading token (`DEBUG`, `INFO`, `WARN`/`WARNING`, `ERROR`,
 * `CRITICAL`/`FATAL`, optionally bracketed, or a glog prefix such as `I20260306`); `INFO` otherwise.
 */
export function parseLogLevel(line: string): LogLevel {
  const glog = /^([IWEF])\d{8}\b/.exec(line);
  if (glog !== null) return GLOG_LEVELS[glog[1] as string] ?? LOG_LEVELS.INFO;
  const token = /^\s*\[?([A-Za-z]+)\]?[\s:]/.exec(`${line} `);
  if (token === null) return LOG_LEVELS.INFO;
  return TOKEN_LEVELS[(token[1] as string).toUpperCase()] ?? LOG_LEVELS.INFO;
}

/** Splits a line into pieces of at most `maxBytes` UTF-8 bytes without cutting a character in half. */
export function splitLogLine(line: string, maxBytes: number = MAX_LOG_LINE_BYTES): string[] {
  if (Buffer.byteLength(line) <= maxBytes) return [line];
  const pieces: string[] = [];
  let current = '';
  let currentBytes = 0;
  for (const ch of line) {
    const bytes = Buffer.byteLength(ch);
    if (currentBytes + bytes > maxBytes) {
      pieces.push(current);
      current = '';
      currentBytes = 0;
    }
    current += ch;
    currentBytes += bytes;
  }
  if (current !== '') pieces.push(current);
  return pieces;
}
