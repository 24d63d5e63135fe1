import { ExecutorError } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import { STATUS_SUCCESS } from '../status/status.js';
import type { StepStatus } from '../status/status.js';
import { unmatchedPatternsError } from './run-only.js';

/** What step selection needs to know about the graph. */
export interface SelectionInput<TStep> {
  /** Every step, in post-order (dependencies first). */
  steps: readonly TStep[];
  name(step: TStep): string;
  /** Canonical blocking dependencies. */
  dependencies(step: TStep): readonly TStep[];
  /** True for steps reached only through pseudo-dependencies. */
  isPseudoDep(step: TStep): boolean;
  /** Status on disk, read once before selection. */
  status(step: TStep): StepStatus | null;
  /** Steps to run again whatever their status (`forceRun`): never pruned. @default none */
  forced?(step: TStep): boolean;
  /** Regex patterns, or `null` to select every non-pseudo step. */
  runOnly: readonly RegExp[] | null;
  logger: ExecutorLogger;
}

/** What step selection decided. */
export interface Selection<TStep> {
  /** The steps the run launches (SUCCESS ones are reported as skipped), dependencies first. */
  selected: TStep[];
  /**
   * Steps left out because everything downstream of them that needs them is already built, each
   * mapped to the built step it only feeds (directly or through other pruned steps).
   */
  pruned: Map<TStep, TStep>;
}

/**
 * Selects the steps a run launches, in launch-discovery order.
 *
 * Without `runOnly`: every non-pseudo-only step that something still needs. Terminal steps (no
 * non-pseudo dependent) are always selected; a dependency is selected only when a selected
 * dependent has not succeeded. So the subtree feeding a SUCCESS output is pruned even when its own
 * outputs were deleted, as in Marin's runner (issue #6783). With `runOnly`: every step whose name
 * matches any pattern (unanchored, `RegExp.test`), plus, depth first, the dependencies of each
 * selected step that has not already succeeded; a SUCCESS step is skipped without descending.
 *
 * @throws {ExecutorError} EXECUTOR_CYCLE `Cycle detected in <name>` when the DFS re-enters a step
 * still on its stack; EXECUTOR_INVALID_ARGUMENT when a `runOnly` pattern matches no step
 * (`details.unmatched`, `details.suggestions`: close step names per pattern).
 */
export function planSelection<TStep>(input: SelectionInput<TStep>): Selection<TStep> {
  return input.runOnly === null ? pruneBuilt(input) : selectRunOnly(input, input.runOnly);
}

/** The selected steps of {@link planSelection}. */
export function selectStepsToRun<TStep>(input: SelectionInput<TStep>): TStep[] {
  return planSelection(input).selected;
}

function pruneBuilt<TStep>(input: SelectionInput<TStep>): Selection<TStep> {
  const steps = input.steps.filter((s) => !input.isPseudoDep(s));
  const dependents = new Map<TStep, TStep[]>();
  for (const s of steps) {
    for (const d of new Set(input.dependencies(s))) dependents.set(d, [...(dependents.get(d) ?? []), s]);
  }
  const demanded = new Set<TStep>();
  const pruned = new Map<TStep, TStep>();
  // Post-order reversed: every dependent is decided before its dependencies.
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i]!;
    const users = dependents.get(s) ?? [];
    if (users.length === 0 || input.forced?.(s) === true || users.some((u) => demanded.has(u) && input.status(u) !== STATUS_SUCCESS)) {
      demanded.add(s);
      continue;
    }
    const user = users[0]!;
    pruned.set(s, pruned.get(user) ?? user);
  }
  return { selected: steps.filter((s) => demanded.has(s)), pruned };
}

function selectRunOnly<TStep>(input: SelectionInput<TStep>, runOnly: readonly RegExp[]): Selection<TStep> {
  const { steps, logger } = input;
  const selected: TStep[] = [];
  const done = new Set<TStep>();
  const onStack = new Set<TStep>();
  const built: TStep[] = [];
  const visit = (step: TStep, matched: boolean): void => {
    if (done.has(step)) return;
    if (onStack.has(step)) {
      throw new ExecutorError('EXECUTOR_CYCLE', `Cycle detected in ${input.name(step)}`, {
        details: { step: input.name(step) },
      });
    }
    if (input.status(step) === STATUS_SUCCESS) {
      logger.info(`Skipping ${input.name(step)}'s dependencies as it has already been run`);
      done.add(step);
      built.push(step);
      // A step the patterns name is reported (skipped), not silently left out.
      if (matched) selected.push(step);
      return;
    }
    onStack.add(step);
    for (const dep of input.dependencies(step)) visit(dep, false);
    onStack.delete(step);
    done.add(step);
    selected.push(step);
  };

  const matched = new Set<RegExp>();
  for (const step of steps) {
    const hits = runOnly.filter((re) => re.test(input.name(step)));
    if (hits.length === 0) continue;
    for (const re of hits) matched.add(re);
    visit(step, true);
  }
  const unmatched = runOnly.filter((re) => !matched.has(re));
  if (unmatched.length > 0) throw unmatchedPatternsError('--run-only', unmatched, steps.map((s) => input.name(s)));
  const chosen = new Set(selected);
  const pruned = new Map<TStep, TStep>();
  for (const b of built) {
    const stack = [...input.dependencies(b)];
    while (stack.length > 0) {
      const d = stack.pop()!;
      if (chosen.has(d) || pruned.has(d) || built.includes(d)) continue;
      pruned.set(d, b);
      stack.push(...input.dependencies(d));
    }
  }
  return { selected, pruned };
}
