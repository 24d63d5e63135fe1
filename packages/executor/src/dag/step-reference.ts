import { ExecutorError } from '../errors.js';
import { ExecutorStep } from './executor-step.js';
import { InputName } from './input-name.js';

/** `new InputName(step, name ?? null)`: the step's output directory, or a path under it. */
export function outputPathOf(step: ExecutorStep, name?: string | null): InputName {
  return new InputName(step, name ?? null);
}

/**
 * The step behind `x`: a step is returned as is, an `InputName` yields its step.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT (`Hardcoded path <name> is not part of the
 *   pipeline`) for a hardcoded `InputName`, and (`Unexpected type <type> for run: <x>`) for anything else.
 */
export function getExecutorStep(x: ExecutorStep | InputName): ExecutorStep {
  if (x instanceof ExecutorStep) return x;
  if (x instanceof InputName) {
    if (x.step === null) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `Hardcoded path ${x.name ?? ''} is not part of the pipeline`, {
        details: { name: x.name },
      });
    }
    return x.step;
  }
  const v = x as unknown;
  const type = v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'object') : typeof v;
  throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `Unexpected type ${type} for run: ${String(v)}`, {
    details: { type },
  });
}
