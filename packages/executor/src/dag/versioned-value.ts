import { FloatValue } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { mapContainer } from './config-node.js';
import { ExecutorStep } from './executor-step.js';
import { InputName } from './input-name.js';
import { MirroredValue } from './mirrored-value.js';
import { OutputName } from './output-name.js';

/**
 * A config value that enters the step's version (and so its hash and output path). Frozen.
 *
 * Nothing inside is walked for placeholders: a `VersionedValue` is a leaf of the config walk.
 */
export class VersionedValue<TValue = unknown> {
  /** The wrapped value. */
  readonly value: TValue;

  /**
   * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a nested `VersionedValue`, an `InputName`,
   *   an `ExecutorStep` or a `MirroredValue` (write `mirrored(versioned(x))` instead).
   */
  constructor(value: TValue) {
    if (value instanceof VersionedValue) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', "Can't nest VersionedValue", {});
    }
    if (value instanceof InputName || value instanceof ExecutorStep) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', "Can't version an InputName", {});
    }
    if (value instanceof MirroredValue) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', "Can't version a MirroredValue; use mirrored(versioned(x))", {});
    }
    this.value = value;
    Object.freeze(this);
  }

  /** `VersionedValue(value=…)`, for messages. */
  toString(): string {
    return `VersionedValue(value=${String(this.value)})`;
  }
}

/**
 * Marks `value` as part of the step's version: changing it changes the hash and output path.
 *
 * @example
 * new ExecutorStep({ name: 'train', fn, config: { lr: versioned(3e-4), epochs: versioned(float(1)) } });
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT (`Can't nest VersionedValue`, `Can't version an InputName`).
 */
export function versioned<TValue>(value: TValue): VersionedValue<TValue> {
  return new VersionedValue(value);
}

/** `value` itself when it is already a `VersionedValue`, else `versioned(value)`. */
export function ensureVersioned<TValue>(value: TValue | VersionedValue<TValue>): VersionedValue<TValue> {
  return value instanceof VersionedValue ? value : new VersionedValue(value);
}

function unwrap(x: unknown, stack: Set<object>): unknown {
  if (x === null || typeof x !== 'object') return x;
  if (x instanceof VersionedValue) return unwrap(x.value, stack);
  if (x instanceof MirroredValue) return unwrap(x.value, stack);
  if (FloatValue.is(x)) return x.value;
  if (x instanceof OutputName || x instanceof InputName || x instanceof ExecutorStep) {
    const type = x.constructor.name;
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `Cannot unwrap VersionedValue containing ${type}`, {
      details: { type },
    });
  }
  return mapContainer(x, stack, (child) => unwrap(child, stack));
}

/**
 * Removes every `VersionedValue`, `MirroredValue` and `FloatValue` wrapper, recursively through
 * records, `Map`s and arrays (containers are rebuilt); everything else passes through unchanged.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT (`Cannot unwrap VersionedValue containing <type>`)
 *   on an `OutputName`, `InputName` or `ExecutorStep`, or on a cyclic value.
 */
export function unwrapVersionedValue(value: unknown): unknown {
  return unwrap(value, new Set());
}
