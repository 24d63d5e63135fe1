import { z } from 'zod';
import { ExecutorError } from '../errors.js';
import { ProgressModeSchema } from '../progress/progress-mode.js';

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
