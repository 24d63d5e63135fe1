import type { ExecutorStep } from '../dag/executor-step.js';
import { FrayStepRunner } from './fray-step-runner.js';
import { InlineStepRunner, isRemoteStep } from './step-runner.js';
import type { StepInvocation, StepRunner } from './step-runner.js';

/** Options of {@link DispatchStepRunner}. */
export interface DispatchStepRunnerOptions {
  /** Runs plain steps. @default new InlineStepRunner() */
  inline?: StepRunner;
  /** Runs remote steps (a `RemoteCallable` fn or `resources` set). @default new FrayStepRunner() */
  fray?: StepRunner;
}

/**
 * The executor's default runner: a plain function with no `resources` runs
 * inline in this process; a step whose `fn` is a `RemoteCallable` or that sets `resources` runs as
 * one Fray job through `currentClient()`.
 */
export class DispatchStepRunner implements StepRunner {
  /** The runner of plain steps. */
  readonly inline: StepRunner;
  /** The runner of remote steps. */
  readonly fray: StepRunner;

  constructor(options: DispatchStepRunnerOptions = {}) {
    this.inline = options.inline ?? new InlineStepRunner();
    this.fray = options.fray ?? new FrayStepRunner();
  }

  private runnerFor(step: ExecutorStep): StepRunner {
    return isRemoteStep(step) ? this.fray : this.inline;
  }

  /** Delegates to the runner the step dispatches to. */
  check(step: ExecutorStep, label: string): void {
    this.runnerFor(step).check(step, label);
  }

  /** Delegates to the runner the step dispatches to. */
  run(invocation: StepInvocation): Promise<void> {
    return this.runnerFor(invocation.step).run(invocation);
  }
}
