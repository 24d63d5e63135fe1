import { createStderrLogger, silentLogger as riggingSilentLogger } from '@marin/rigging';
import type { Logger } from '@marin/rigging';

/**
 * Where the executor's log lines go; inject one to capture or silence them. It is rigging's `Logger`:
 * `info` for progress and decisions (`Skip <label>: already succeeded`), `warn` for surprises that do
 * not stop the run (duplicate steps, override mismatches).
 */
export type ExecutorLogger = Logger;

/** The default logger: one line per message on stderr, `[executor] INFO …` / `[executor] WARN …`. */
export const stderrLogger: ExecutorLogger = createStderrLogger('executor');

/** A logger that drops everything (benchmarks, tests that only check data). */
export const silentLogger: ExecutorLogger = riggingSilentLogger;
