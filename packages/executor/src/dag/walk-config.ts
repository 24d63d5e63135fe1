import { ExecutorError } from '../errors.js';
import { configCycleError, isConfigRecord } from './config-node.js';
import { ExecutorStep } from './executor-step.js';
import { InputName } from './input-name.js';
import { MirroredValue } from './mirrored-value.js';
import { VersionedValue } from './versioned-value.js';

/** A reference to a path found by {@link walkConfig} at key path `prefix`. */
export class InputNameEvent {
  constructor(
    /** Key path of the reference (`a.b`, `xs.[0]`, `""` at the root). */
    readonly prefix: string,
    /** The reference; a bare step is reported as `new InputName(step, null)`. */
    readonly inputName: InputName,
  ) {
    Object.freeze(this);
  }
}

/** A `versioned(...)` value found by {@link walkConfig} at key path `prefix`. */
export class VersionedEvent {
  constructor(
    /** Key path of the value. */
    readonly prefix: string,
    /** The wrapped value (not the wrapper); may be `null`. */
    readonly value: unknown,
  ) {
    Object.freeze(this);
  }
}

/** One event of {@link walkConfig}. */
export type ConfigEvent = InputNameEvent | VersionedEvent;

function typeName(x: unknown): string {
  if (x === null) return 'null';
  if (typeof x === 'object') return x.constructor?.name ?? 'object';
  return typeof x;
}

function child(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`;
}

/** Allocation-free callbacks of {@link visitConfigRaw} (versioning walks every config). */
export interface ConfigVisitor {
  /** A step reference: a bare step arrives as `(prefix, step, null, true)`. */
  input(prefix: string, step: ExecutorStep | null, name: string | null, blockOnStep: boolean, inputName: InputName | null): void;
  /** A `versioned(...)` value (the unwrapped value). */
  versioned(prefix: string, value: unknown): void;
}

/**
 * The walk of {@link walkConfig} with plain callbacks instead of event objects.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a `Map` key that is not a string
 *   (`dict keys must be strs, …`) or a cyclic config (`details.path` names the key path).
 */
export function visitConfigRaw(obj: unknown, visitor: ConfigVisitor): void {
  const stack = new Set<object>();
  const visit = (x: unknown, prefix: string): void => {
    if (x === null || typeof x !== 'object') return;
    if (x instanceof ExecutorStep) {
      visitor.input(prefix, x, null, true, null);
      return;
    }
    if (x instanceof InputName) {
      visitor.input(prefix, x.step, x.name, x.blockOnStep, x);
      return;
    }
    if (x instanceof MirroredValue) {
      visit(x.value, prefix);
      return;
    }
    if (x instanceof VersionedValue) {
      visitor.versioned(prefix, x.value);
      return;
    }
    const isArray = Array.isArray(x);
    const isMap = x instanceof Map;
    const isSet = x instanceof Set;
    if (!isArray && !isMap && !isSet && !isConfigRecord(x)) return;
    if (stack.has(x)) throw configCycleError(prefix, typeName(x));
    stack.add(x);
    if (isArray || isSet) {
      let i = 0;
      for (const v of x as Iterable<unknown>) visit(v, child(prefix, `[${i++}]`));
    } else if (isMap) {
      for (const [k, v] of x as Map<unknown, unknown>) {
        if (typeof k !== 'string') {
          throw new ExecutorError(
            'EXECUTOR_INVALID_ARGUMENT',
            `dict keys must be strs, but got ${String(k)} (type: ${typeName(k)})`,
            { details: { path: prefix, key: String(k), type: typeName(k) } },
          );
        }
        visit(v, child(prefix, k));
      }
    } else {
      for (const k of Object.keys(x)) visit((x as Record<string, unknown>)[k], child(prefix, k));
    }
    stack.delete(x);
  };
  visit(obj, '');
}

/**
 * Calls `emit` for every event of `obj` in walk order; the callback form of {@link walkConfig}.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a non-string `Map` key or a cyclic config.
 */
export function visitConfig(obj: unknown, emit: (event: ConfigEvent) => void): void {
  visitConfigRaw(obj, {
    input: (prefix, step, name, blockOnStep, inputName) =>
      emit(new InputNameEvent(prefix, inputName ?? new InputName(step, name, blockOnStep))),
    versioned: (prefix, value) => emit(new VersionedEvent(prefix, value)),
  });
}

/**
 * Walks a config depth-first in key insertion order and yields every input reference and versioned
 * value with its key path (`a.b`, `xs.[0]`, `[0]` at a root list, `""` for a root placeholder).
 *
 * Steps and `InputName`s are not descended into (a step's own config is never walked),
 * `VersionedValue`s are leaves, `MirroredValue`s are transparent; records, `Map`s, arrays and `Set`s
 * are walked; everything else is a leaf.
 *
 * @example
 * [...walkConfig({ a: versioned(1), b: { c: dataStep } })]
 * // [VersionedEvent { prefix: 'a', value: 1 }, InputNameEvent { prefix: 'b.c', inputName: InputName(dataStep) }]
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a non-string `Map` key or a cyclic config.
 */
export function* walkConfig(obj: unknown): Generator<ConfigEvent, void, undefined> {
  const events: ConfigEvent[] = [];
  visitConfig(obj, (e) => events.push(e));
  yield* events;
}
