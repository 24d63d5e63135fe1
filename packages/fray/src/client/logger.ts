/** Where backends report job output and warnings. */
export interface FrayLogger {
  /** Job output lines and progress. */
  info(message: string): void;
  /** Things the caller should know (ignored resources, failures returned without raising). */
  warn(message: string): void;
}

/** The default logger: writes to stderr so job output never mixes with the caller's stdout. */
export const stderrLogger: FrayLogger = Object.freeze({
  info(message: string): void {
    process.stderr.write(`${message}\n`);
  },
  warn(message: string): void {
    process.stderr.write(`[fray] warning: ${message}\n`);
  },
});

/** A logger that drops everything. */
export const silentLogger: FrayLogger = Object.freeze({
  info(): void {},
  warn(): void {},
});
