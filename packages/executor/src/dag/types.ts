import type { Resolved } from './resolved.js';

/** What a step function receives besides its resolved config (port-specific; Marin calls `fn(config)`). */
export interface StepContext {
  /** The step's name, e.g. `hello_world/data`. */
  readonly name: string;
  /** The step's resolved output path. */
  readonly outputPath: string;
  /** Aborted when the executor loses the step's lease; honour it to stop early. */
  readonly signal: AbortSignal;
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
