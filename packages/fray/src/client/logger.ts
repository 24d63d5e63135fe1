import { silentLogger as riggingSilentLogger } from '@marin/rigging';
import type { Logger } from '@marin/rigging';

/**
 * Where backends report job output and warnings: rigging's `Logger`, `info` for job output lines and
 * progress, `warn` for things the caller should know (ignored resources, failures returned without raising).
 */
export type FrayLogger = Logger;

/**
 * The default logger: writes to stderr so job output never mixes with the caller's stdout. Unlike
 * rigging's `createStderrLogger`, `info` lines go out verbatim: they are the job's own output.
 */
export const stderrLogger: FrayLogger = Object.freeze({
  info(message: string): void {
    process.stderr.write(`${message}\n`);
  },
  warn(message: string): void {
    process.stderr.write(`[fray] warning: ${message}\n`);
  },
});

/** A logger that drops everything. */
export const silentLogger: FrayLogger = riggingSilentLogger;
