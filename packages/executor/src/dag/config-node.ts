import { FloatValue, StoragePath, isBuiltinInstance } from '@marin/rigging';
import { ExecutorError } from '../errors.js';

/** True for config leaves that are objects: `FloatValue`s, `StoragePath`s and built-in class instances. */
export function isOpaqueObject(x: object): boolean {
  return FloatValue.is(x) || x instanceof StoragePath || isBuiltinInstance(x);
}

/**
 * True for a config record: a plain object or an instance of a user class (not an array, `Map`,
 * `Set`, `FloatValue` or built-in instance). Placeholders are records too; callers test them first.
 */
export function isConfigRecord(x: unknown): x is Record<string, unknown> {
  return (
    typeof x === 'object' &&
    x !== null &&
    !Array.isArray(x) &&
    !(x instanceof Map) &&
    !(x instanceof Set) &&
    !isOpaqueObject(x)
  );
}

/** Sets an own data property, so a `"__proto__"` key stays data and never replaces the prototype. */
export function setOwn(target: object, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    (target as Record<string, unknown>)[key] = value;
  }
}

/**
 * A new record with the same prototype as `record` and each own enumerable key mapped through `fn`;
 * frozen when `record` was. Constructors are not re-run.
 */
export function mapRecord(record: object, fn: (value: unknown, key: string) => unknown): object {
  const proto: unknown = Object.getPrototypeOf(record);
  const plain = proto === Object.prototype || proto === null;
  const out: object = plain ? (proto === null ? Object.create(null) : {}) : Object.create(proto as object);
  for (const key of Object.keys(record)) {
    const value = fn((record as Record<string, unknown>)[key], key);
    if (plain) setOwn(out, key, value);
    else Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return Object.isFrozen(record) ? Object.freeze(out) : out;
}

/** The error for a config that contains itself. */
export function configCycleError(path: string | null, type: string): ExecutorError {
  const where = path === null ? `through a ${type}` : `at "${path}"`;
  return new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `config contains a cycle ${where}`, {
    details: { path, type },
  });
}

/**
 * Rebuilds an array, `Map` or plain record with each element mapped through `fn`; a class instance
 * is rebuilt (same prototype, no constructor call) only when `fn` changes one of its fields, else
 * returned as is; any other object (`Set`, `FloatValue`, built-ins) is returned unchanged. `stack` holds the containers being
 * rebuilt, to report a cycle instead of recursing forever.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT when `x` is already on `stack`.
 */
export function mapContainer(x: object, stack: Set<object>, fn: (child: unknown) => unknown): unknown {
  const container = Array.isArray(x) || x instanceof Map || isConfigRecord(x);
  if (!container) return x;
  if (stack.has(x)) throw configCycleError(null, x.constructor?.name ?? 'object');
  stack.add(x);
  try {
    if (Array.isArray(x)) return x.map(fn);
    if (x instanceof Map) {
      const out = new Map<unknown, unknown>();
      for (const [k, v] of x) out.set(k, fn(v));
      return out;
    }
    const proto: unknown = Object.getPrototypeOf(x);
    if (proto === Object.prototype || proto === null) return mapRecord(x, fn);
    // A class instance is rebuilt only when something inside it changes: a copy made without its
    // constructor would lack private fields (#x), so methods of untouched instances keep working.
    const mapped = new Map<string, unknown>();
    let changed = false;
    for (const k of Object.keys(x)) {
      const v = (x as Record<string, unknown>)[k];
      const r = fn(v);
      mapped.set(k, r);
      if (r !== v) changed = true;
    }
    return changed ? mapRecord(x, (_v, k) => mapped.get(k)) : x;
  } finally {
    stack.delete(x);
  }
}
