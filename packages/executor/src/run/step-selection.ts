import { ExecutorError } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import { STATUS_SUCCESS } from '../status/status.js';
import type { StepStatus } from '../status/status.js';

/** What step selection needs to know about the graph (executor spec §6.2). */
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
  /** Regex patterns, or `null` to select every non-pseudo step. */
  runOnly: readonly RegExp[] | null;
  logger: ExecutorLogger;
}

/**
 * Selects the steps a run launches, in launch-discovery order.
 *
 * Without `runOnly`: every non-pseudo-only step. With it: every step whose name matches any pattern
 * (unanchored, `RegExp.test`), plus, depth first, the dependencies of each selected step that has not
 * already succeeded; a SUCCESS step is skipped without descending. Patterns that matched nothing
 * produce one warning.
 *
 * @throws {ExecutorError} EXECUTOR_CYCLE `Cycle detected in <name>` when the DFS re-enters a step
 * still on its stack.
 */
export function selectStepsToRun<TStep>(input: SelectionInput<TStep>): TStep[] {
  const { steps, runOnly, logger } = input;
  if (runOnly === null) return steps.filter((s) => !input.isPseudoDep(s));

  const selected: TStep[] = [];
  const done = new Set<TStep>();
  const onStack = new Set<TStep>();
  const visit = (step: TStep): void => {
    if (done.has(step)) return;
    if (onStack.has(step)) {
      throw new ExecutorError('EXECUTOR_CYCLE', `Cycle detected in ${input.name(step)}`, {
        details: { step: input.name(step) },
      });
    }
    if (input.status(step) === STATUS_SUCCESS) {
      logger.info(`Skipping ${input.name(step)}'s dependencies as it has already been run`);
      done.add(step);
      return;
    }
    onStack.add(step);
    for (const dep of input.dependencies(step)) visit(dep);
    onStack.delete(step);
    done.add(step);
    selected.push(step);
  };

  const matched = new Set<RegExp>();
  for (const step of steps) {
    const hits = runOnly.filter((re) => re.test(input.name(step)));
    if (hits.length === 0) continue;
    for (const re of hits) matched.add(re);
    visit(step);
  }
  const unmatched = runOnly.filter((re) => !matched.has(re));
  if (unmatched.length > 0) {
    logger.warn(`Regexes [${unmatched.map((re) => JSON.stringify(re.source)).join(', ')}] did not match any steps`);
  }
  return selected;
}
