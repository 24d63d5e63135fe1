/** The level of a log line the dashboard colours it by. */
export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

const ABSL_LEVEL: Readonly<Record<string, LogLevel>> = { D: 'debug', I: 'info', W: 'warning', E: 'error', F: 'error' };
const NAMED_LEVEL: Readonly<Record<string, LogLevel>> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warning',
  WARNING: 'warning',
  ERROR: 'error',
  CRITICAL: 'error',
  FATAL: 'error',
};

// An optional `[task or job tag] ` the executor prefixes child output with.
const TAG = String.raw`(?:\[[^\]]{1,200}\]\s+)?`;
// absl / glog (JAX, Levanter): `I1126 02:39:22.123456 …` or with the year, `I20261126 02:39:22 …`.
const ABSL = new RegExp(String.raw`^${TAG}([DIWEF])(?:\d{4}|\d{8}) \d\d:\d\d:\d\d`);
// Python logging's default `WARNING:name:msg`, and `LEVEL` / `[LEVEL]` / `LEVEL:` first on the line.
const LEADING = new RegExp(String.raw`^${TAG}\[?(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?(?=[:\s|]|$)`);
// A timestamped record, `2026-11-26 02:39:22,123 - name - INFO - msg`, `2026-11-26T02:39:22Z INFO name: msg`,
// `02:39:22 [WARNING] …`: the level as the first word after the time and at most a logger name.
const STAMPED = new RegExp(
  String.raw`^${TAG}(?:\d{4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s*(?:[-|:]\s*)?(?:[\w.\-]+\s+[-|:]\s+)?\[?(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?(?=[:\s|\]]|$)`,
);
// A Python traceback and the exception line that ends it.
const TRACEBACK = /^(?:Traceback \(most recent call last\):|(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception):\s)/;

/**
 * The level a log line states, or null when it states none (such a line keeps its stream's plain
 * colour: stderr is where Python and JAX log everything, so stderr alone says nothing about severity).
 */
export function logLevelOf(line: string): LogLevel | null {
  const absl = ABSL.exec(line);
  if (absl !== null) return ABSL_LEVEL[absl[1]!] ?? null;
  const named = LEADING.exec(line) ?? STAMPED.exec(line);
  if (named !== null) return NAMED_LEVEL[named[1]!] ?? null;
  return TRACEBACK.test(line) ? 'error' : null;
}
