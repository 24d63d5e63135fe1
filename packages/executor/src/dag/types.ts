import type { Resolved } from './resolved.js';

/** What a step function receives besides its resolved config (port-specific; Marin calls `fn(config)`). */
export interface StepContext {
  /** The step's name, e.g. `hello_world/data`. */
  readonly name: string;
  /** The step's resolved output path. */
  readonly outputPath: string;
  /** Aborted when the executor loses the step's lease; honour it to stop early. */
  readonly signal: AbortSignal;
  /** What the step may show while it runs; absent where nobody watches (a remote step's worker, tests). */
  readonly progress?: StepProgress;
}

/**
 * How a running step shows its own progress through the executor's display, e.g. a training step's
 * `step 12/20 · loss 5.83 · 1.2k tok/s · ETA 0:41` instead of its tool's raw log.
 */
export interface StepProgress {
  /** The run's output level (`--quiet`, `--verbose`): at `verbose` a step may also show its raw log. */
  readonly level: 'quiet' | 'normal' | 'verbose';
  /**
   * The step's current status, replacing the previous one: on a terminal it is the step's line in the
   * live view; off a terminal a `⋯ <label> <status>` line, at most once per status interval (`--status-interval`).
   * Not shown at `quiet`.
   */
  status(text: string): void;
  /** Prints one line once (where the step's raw log goes), indented under the step; not at `quiet`. */
  note(text: string): void;
}

/**
 * The function a step runs: receives the step's config with every placeholder resolved.
 *
 * Declared through a method signature so `ExecutorStep<TConfig>` stays assignable to
 * `ExecutorStep<unknown>` (method parameters are bivariant).
 */
export type StepFn<TConfig> = {
  bivarianceHack(config: Resolved<TConfig>, ctx: StepContext): unknown;
}['bivarianceHack'];
