import { RemoteCallable } from '@marin/fray';
import { mirrorBudget } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import type { ExecutorStep } from '../dag/executor-step.js';
import type { StepContext, StepProgress } from '../dag/types.js';
import type { ExecutorLogger } from '../logger.js';

/** Everything a runner needs to execute one step attempt. */
export interface StepInvocation {
  step: ExecutorStep;
  /** `<name>-<hash6>`, for messages. */
  label: string;
  /** The fully instantiated config (placeholders resolved, markers stripped). */
  config: unknown;
  /**
   * The same config with `FloatValue` markers kept (what `.executor_info` holds): remote runners ship it
   * as JSON so integer-valued floats stay floats. @default config
   */
  infoConfig?: unknown;
  /** The executor prefix (remote workers recompute output paths under it). */
  prefix: string;
  outputPath: string;
  /** Aborted when the lease is lost (fencing). */
  signal: AbortSignal;
  /** Largest `budgetGb` of the raw config's mirrored values, or `null` when it has none. */
  mirrorBudgetGb: number | null;
  /** The executor's logger (lines go through its progress display). @default the runner's own */
  logger?: ExecutorLogger;
  /**
   * Tells the person watching where the step went (`Step <label> submitted as Fray job <id>`): the
   * executor prints it at its normal output level, where info lines are hidden. @default nothing
   */
  notify?(message: string): void;
  /** Passed to the step function as `ctx.progress` (inline steps only). @default none */
  progress?: StepProgress;
}

/**
 * Executes step bodies inside the lease. `InlineStepRunner` calls plain functions in-process,
 * `FrayStepRunner` runs a step as one Fray job, and `DispatchStepRunner` (the default) picks one per
 * step. The lease loop, statuses and fencing stay with the executor whatever the runner.
 */
export interface StepRunner {
  /**
   * Throws before anything is written when this runner cannot execute `step`.
   *
   * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for an unsupported step.
   */
  check(step: ExecutorStep, label: string): void;
  /** Runs one attempt; resolves when the step function has finished. */
  run(invocation: StepInvocation): Promise<void>;
}

/** Whether a step runs as a Fray job: its `fn` is a `RemoteCallable` or it sets `resources`. */
export function isRemoteStep(step: ExecutorStep): boolean {
  return step.resources !== null || RemoteCallable.is(step.fn);
}

/**
 * Calls a step's own function (the callable's inner function for a `RemoteCallable`) with its resolved
 * config and context, inside `mirrorBudget(mirrorBudgetGb)` when the config has mirrored inputs.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT (`Step <label> has no callable fn`) when there is none;
 * otherwise whatever the function throws.
 */
export async function callStepFunction(options: {
  step: ExecutorStep;
  label: string;
  config: unknown;
  ctx: StepContext;
  mirrorBudgetGb: number | null;
}): Promise<void> {
  const { step, label } = options;
  const fn = RemoteCallable.is(step.fn) ? step.fn.fn : step.fn;
  if (typeof fn !== 'function') {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `Step ${label} has no callable fn`, { details: { step: label } });
  }
  const call = async (): Promise<void> => {
    await (fn as (config: unknown, ctx: StepContext) => unknown)(options.config, options.ctx);
  };
  if (options.mirrorBudgetGb === null) await call();
  else await mirrorBudget(options.mirrorBudgetGb, call);
}

/**
 * Runs a plain step function in this process, inside the caller's async context (so
 * `AsyncLocalStorage` values set around `run()` are visible) and inside `mirrorBudget` when the
 * config has mirrored inputs. The return value is ignored.
 */
export class InlineStepRunner implements StepRunner {
  check(step: ExecutorStep, label: string): void {
    if (isRemoteStep(step)) {
      throw new ExecutorError(
        'EXECUTOR_INVALID_ARGUMENT',
        `step ${label} is a remote step (it sets resources or uses remote()) and this executor's runner only runs steps inline; use the default runner (DispatchStepRunner) to run it as a Fray job`,
        { details: { step: label } },
      );
    }
  }

  async run(inv: StepInvocation): Promise<void> {
    this.check(inv.step, inv.label);
    const ctx: StepContext = { name: inv.step.name, outputPath: inv.outputPath, signal: inv.signal, ...(inv.progress === undefined ? {} : { progress: inv.progress }) };
    await callStepFunction({ step: inv.step, label: inv.label, config: inv.config, ctx, mirrorBudgetGb: inv.mirrorBudgetGb });
  }
}
