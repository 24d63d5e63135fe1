/** Where the executor's log lines go; inject one to capture or silence them. */
export interface ExecutorLogger {
  /** Progress and decisions (`Skip <label>: already succeeded`). */
  info(msg: string): void;
  /** Something surprising that does not stop the run (duplicate steps, override mismatches). */
  warn(msg: string): void;
}

/** The default logger: one line per message on stderr, prefixed with its level. */
export const stderrLogger: ExecutorLogger = Object.freeze({
  info(msg: string): void {
    process.stderr.write(`[executor] INFO ${msg}\n`);
  },
  warn(msg: string): void {
    process.stderr.write(`[executor] WARN ${msg}\n`);
  },
});

/** A logger that drops everything (benchmarks, tests that only check data). */
export const silentLogger: ExecutorLogger = Object.freeze({
  info(): void {},
  warn(): void {},
});
