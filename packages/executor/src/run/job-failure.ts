import { ExecutorError } from '../errors.js';

/**
 * A failed Fray job already carries the step error (`Step failed: <label>;
 * status=<status>`); the lease loop's generic `Step failed: <label>` around it is dropped.
 */
export function jobFailureOf(e: unknown, label: string): ExecutorError | null {
  if (!ExecutorError.hasCode(e, 'EXECUTOR_STEP_FAILED')) return null;
  const inner = e.cause;
  if (!ExecutorError.hasCode(inner, 'EXECUTOR_STEP_FAILED')) return null;
  return inner.details['step'] === label && typeof inner.details['jobId'] === 'string' ? inner : null;
}
