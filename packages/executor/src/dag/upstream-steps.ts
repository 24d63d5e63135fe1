import type { ExecutorStep } from './executor-step.js';
import { InputNameEvent, visitConfig } from './walk-config.js';

/**
 * The steps a config refers to, unique by identity, in first-discovery order.
 *
 * Nonblocking inputs count; hardcoded paths do not; the configs of the steps found are not walked.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a non-string `Map` key or a cyclic config.
 */
export function upstreamSteps(obj: unknown): ExecutorStep[] {
  const seen = new Set<ExecutorStep>();
  visitConfig(obj, (e) => {
    if (e instanceof InputNameEvent && e.inputName.step !== null) seen.add(e.inputName.step);
  });
  return [...seen];
}
