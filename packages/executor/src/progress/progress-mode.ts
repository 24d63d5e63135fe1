import { z } from 'zod';

/** How progress is shown: `auto` (live on a TTY outside CI, plain otherwise), `live` or `plain`. */
export const ProgressModeSchema = z.enum(['auto', 'live', 'plain']);

/** A progress mode accepted by `run()` and `--progress`. */
export type ProgressMode = z.output<typeof ProgressModeSchema>;

/**
 * How much a run prints: `quiet` (failures and the summary), `normal` (one line when a step starts,
 * with the reason, and one when it ends; skipped steps only counted), `verbose` (every state change
 * and every log line).
 */
export const OutputLevelSchema = z.enum(['quiet', 'normal', 'verbose']);

/** An output level accepted by `run()` (`--quiet`, `--verbose`). */
export type OutputLevel = z.output<typeof OutputLevelSchema>;
