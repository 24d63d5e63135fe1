import { z } from 'zod';
import { ExecutorError } from '../errors.js';
import { OutputLevelSchema, ProgressModeSchema } from '../progress/progress-mode.js';

/** The default of `maxConcurrent` (Marin's pool size). */
export const DEFAULT_MAX_CONCURRENT = 8;

/** Options of `Executor.run()` and `Executor.explain()`. */
export const RunOptionsSchema = z.object({
  /** Explain what would happen and write nothing. @default false */
  dryRun: z.boolean().default(false),
  /** Regexes (unanchored) selecting steps to run with their dependencies; `null` runs everything. @default null */
  runOnly: z.array(z.string()).nullish().transform((v) => v ?? null),
  /** Rerun steps whose last attempt FAILED. @default true */
  forceRunFailed: z.boolean().default(true),
  /** At most this many steps active at once (a step waiting on a lease is active). @default 8 */
  maxConcurrent: z.number().nullish().transform((v) => v ?? DEFAULT_MAX_CONCURRENT),
  /** Progress display. @default 'auto' */
  progress: ProgressModeSchema.default('auto'),
  /** Off a TTY, the least time between two status lines of a running step (`ctx.progress.status`), in ms. @default 10000 */
  statusIntervalMs: z.number().positive().default(10_000),
  /**
   * How much the run prints with the default logger: `quiet` (failures and the summary), `normal`
   * (a step's start with its reason and its end), `verbose` (every state change and log line).
   * An injected logger receives every line whatever the level. @default 'normal'
   */
  verbosity: OutputLevelSchema.default('normal'),
  /** Regexes (unanchored) of steps to run again even when their output already succeeded. @default null */
  forceRun: z.array(z.string()).nullish().transform((v) => v ?? null),
  /**
   * Aborting it interrupts the run: running steps are aborted through their signal, written FAILED
   * and their leases released; no new step starts; `run()` rejects with EXECUTOR_INTERRUPTED.
   */
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal).optional(),
});

/** What callers pass to `run()`. */
export type RunOptions = z.input<typeof RunOptionsSchema>;
/** Resolved run options. */
export type RunConfig = z.output<typeof RunOptionsSchema>;

/**
 * Validates run options.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT `max_concurrent must be a positive integer, got <n>`
 * or naming the first invalid option.
 */
export function parseRunOptions(options: RunOptions): RunConfig {
  const mc = (options as { maxConcurrent?: unknown }).maxConcurrent;
  if (mc !== undefined && mc !== null && (typeof mc !== 'number' || !Number.isInteger(mc) || mc < 1)) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `max_concurrent must be a positive integer, got ${String(mc)}`, {
      details: { maxConcurrent: mc },
    });
  }
  const parsed = RunOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `invalid run option ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`, {
      cause: parsed.error,
      details: { issues: parsed.error.issues },
    });
  }
  return parsed.data;
}
