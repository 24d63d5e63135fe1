import { ExecutorError } from '../errors.js';
import type { ExecutorStep } from './executor-step.js';
import { pathJoin } from './path-join.js';

/**
 * A reference to a path: `<step output>/<name>` when `step` is set, else a prefix-relative (or
 * absolute) path outside the DAG. Resolved to a string when the consuming step runs. Frozen.
 */
export class InputName {
  /** The referenced step, or `null` for a hardcoded path. */
  readonly step: ExecutorStep | null;
  /** Sub-path under the step's output (or the hardcoded path); `null` means the output itself. */
  readonly name: string | null;
  /** `false` for a pseudo-dependency: versioned like an input but never waited for. */
  readonly blockOnStep: boolean;

  /** @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT if `name` is neither a string nor `null`. */
  constructor(step: ExecutorStep | null, name: string | null, blockOnStep = true) {
    if (name !== null && typeof name !== 'string') {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `InputName name must be a string or null, got ${typeof name}`, {
        details: { type: typeof name },
      });
    }
    if (step === null && (name === null || name === '')) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'a hardcoded InputName needs a non-empty path', {});
    }
    this.step = step;
    this.name = name;
    this.blockOnStep = blockOnStep;
    Object.freeze(this);
  }

  /** A hardcoded, prefix-relative path that is not produced by any step. */
  static hardcoded(path: string): InputName {
    return new InputName(null, path);
  }

  /** `<name>/<n>` (POSIX join; an `n` starting with `/` replaces it), keeping step and blocking. */
  cd(n: string): InputName {
    const name = this.name !== null && this.name !== '' ? pathJoin(this.name, n) : n;
    return new InputName(this.step, name, this.blockOnStep);
  }

  /** A copy that is a pseudo-dependency: hashed, but its step is neither run nor awaited for it. */
  nonblocking(): InputName {
    return new InputName(this.step, this.name, false);
  }

  /** `InputName(step=…, name=…)`, for messages. */
  toString(): string {
    return `InputName(step=${this.step === null ? 'None' : this.step.name}, name=${this.name ?? 'None'})`;
  }
}
