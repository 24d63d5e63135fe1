import { ExecutorError } from '../errors.js';
import { ExecutorStep } from './executor-step.js';
import { InputName } from './input-name.js';
import { VersionedValue } from './versioned-value.js';

/** Options of {@link mirrored}. */
export interface MirroredOptions {
  /** Transfer budget for the `mirror://` copy, in GB. Never versioned. @default 10 */
  budgetGb?: number;
}

/**
 * A path to read through `mirror://` (copied into the local region on demand, under a transfer
 * budget). Versioning ignores the wrapper; resolution rewrites the path to `mirror://…`. Frozen.
 */
export class MirroredValue<TValue = unknown> {
  /** The wrapped path: a string, a `VersionedValue` or an `InputName`. */
  readonly value: TValue;
  /** Transfer budget in GB. */
  readonly budgetGb: number;

  /**
   * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a nested `MirroredValue` or a budget that is
   *   not a positive finite number.
   */
  constructor(value: TValue, budgetGb: number) {
    if (value instanceof MirroredValue) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', "Can't nest MirroredValue", {});
    }
    if (typeof budgetGb !== 'number' || !Number.isFinite(budgetGb) || budgetGb <= 0) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `mirrored() budgetGb must be a positive number, got ${String(budgetGb)}`, {
        details: { budgetGb },
      });
    }
    this.value = value;
    this.budgetGb = budgetGb;
    Object.freeze(this);
  }

  /** `MirroredValue(value=…, budget_gb=…)`, for messages. */
  toString(): string {
    return `MirroredValue(value=${String(this.value)}, budget_gb=${this.budgetGb})`;
  }
}

/**
 * Reads `value` through `mirror://`, copying at most `budgetGb` GB into the local region.
 *
 * @example
 * { input_path: mirrored(versioned('documents/data'), { budgetGb: 50 }) } // → "mirror://documents/data"
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT (`Can't nest MirroredValue`) for a `MirroredValue`,
 *   and for anything other than a string, `VersionedValue`, `InputName` or `ExecutorStep`.
 */
export function mirrored<TValue extends string | VersionedValue | InputName | ExecutorStep>(
  value: TValue,
  options: MirroredOptions = {},
): MirroredValue<TValue> {
  if (value instanceof MirroredValue) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', "Can't nest MirroredValue", {});
  }
  const ok =
    typeof value === 'string' ||
    value instanceof VersionedValue ||
    value instanceof InputName ||
    value instanceof ExecutorStep;
  if (!ok) {
    throw new ExecutorError(
      'EXECUTOR_INVALID_ARGUMENT',
      `mirrored() needs a string, VersionedValue, InputName or ExecutorStep, got ${value === null ? 'null' : typeof value}`,
      {},
    );
  }
  return new MirroredValue(value, options.budgetGb ?? 10);
}
