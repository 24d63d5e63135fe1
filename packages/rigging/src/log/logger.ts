/**
 * Where a component's log lines go: progress and decisions at `info`, surprises that do not stop the work
 * at `warn`. Components take one as an option, so callers capture or silence their lines.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * A logger writing one line per message to stderr (never stdout, which belongs to the caller), as
 * `[<name>] INFO <message>` and `[<name>] WARN <message>`.
 *
 * @example createStderrLogger('executor').warn('duplicate step') // stderr: "[executor] WARN duplicate step"
 */
export function createStderrLogger(name: string): Logger {
  return Object.freeze({
    info(message: string): void {
      process.stderr.write(`[${name}] INFO ${message}\n`);
    },
    warn(message: string): void {
      process.stderr.write(`[${name}] WARN ${message}\n`);
    },
  });
}

/** A logger that drops everything (benchmarks, tests that only check data). */
export const silentLogger: Logger = Object.freeze({
  info(): void {},
  warn(): void {},
});
