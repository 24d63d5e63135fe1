import { mirrorBudget } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import type { ExecutorStep } from '../dag/executor-step.js';
import type { StepContext } from '../dag/types.js';

/** Everything a runner needs to execute one step attempt. */
export interface StepInvocation {
  step: ExecutorStep;
  /** `<name>-<hash6>`, for messages. */
  label: string;
  /** The fully instantiated config (placeholders resolved, markers stripped). */
  config: unknown;
  outputPath: string;
  /** Aborted when the lease is lost (fencing). */
  signal: AbortSignal;
  /** Largest `budgetGb` of the raw config's mirrored values, or `null` when it has none. */
  mirrorBudgetGb: number | null;
}

/**
 * Executes step functions. The inline runner is the only implementation today; remote steps (a
 * Fray job per step) plug in here later without touching the lease loop.
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

function isRemoteCallable(fn: unknown): boolean {
  return typeof fn === 'object' && fn !== null && typeof (fn as { fn?: unknown }).fn === 'function';
}

/**
 * Runs a plain step function in this process, inside the caller's async context (so
 * `AsyncLocalStorage` values set around `run()` are visible) and inside `mirrorBudget` when the
 * config has mirrored inputs. The return value is ignored.
 */
export class InlineStepRunner implements StepRunner {
  check(step: ExecutorStep, label: string): void {
    if (step.resources != null || isRemoteCallable(step.fn)) {
      throw new ExecutorError(
        'EXECUTOR_INVALID_ARGUMENT',
        `step ${label} is a remote step (it sets resources or uses remote()); remote steps need the Fray backend, which this executor does not have yet; remove resources to run it inline`,
        { details: { step: label } },
      );
    }
  }

  async run(inv: StepInvocation): Promise<void> {
    this.check(inv.step, inv.label);
    const fn = inv.step.fn;
    if (typeof fn !== 'function') {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `Step ${inv.label} has no callable fn`, {
        details: { step: inv.label },
      });
    }
    const ctx: StepContext = { name: inv.step.name, outputPath: inv.outputPath, signal: inv.signal };
    const call = async (): Promise<void> => {
      await (fn as (config: unknown, ctx: StepContext) => unknown)(inv.config, ctx);
    };
    if (inv.mirrorBudgetGb === null) await call();
    else await mirrorBudget(inv.mirrorBudgetGb, call);
  }
}
