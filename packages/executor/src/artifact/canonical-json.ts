import { createHash } from 'node:crypto';
import { compareCodePoints, FloatValue, pyJsonDumps, RiggingError, StoragePath } from '@marin/rigging';
import { ExecutorError } from '../errors.js';

/**
 * Marin's canonical JSON of a fingerprint config (`marin.execution.fingerprint.canonical_json`):
 * `json.dumps(config, sort_keys=True)` with its fingerprint encoder, byte for byte.
 *
 * What maps to what (Python on the left):
 * - `int` is an integral `number` (or a `bigint` beyond 2**53); `float` is a non-integral `number` or a
 *   `FloatValue` (`float(1)` writes `1.0`, as Python's `1.0`). An integral `number` always writes as an int.
 * - `list` and `tuple` are arrays; `dict` is a plain object or a `Map` with string keys (keys sorted by
 *   code point); a dataclass is the plain object of its fields; an `Enum` is its value; a `Path` is its
 *   string (a `StoragePath` writes its string too).
 * - `set`/`frozenset` is a `Set`: `{"__set__": [...]}` with members ordered by their own canonical JSON.
 * - `NaN` and the infinities write as Python's bare `NaN`/`Infinity`; strings are escaped with `ensure_ascii`.
 * - `undefined` writes as `null` (Python has one absent value).
 *
 * Python types with no JavaScript value (`timedelta`, numpy dtypes and arrays, classes, objects written through
 * the best-effort fallback or a registered encoder) have no counterpart: build the dict Python's encoder
 * would emit for them (`{"days": .., "seconds": .., "microseconds": ..}` for a `timedelta`, say).
 *
 * @throws {ExecutorError} EXECUTOR_UNCANONICAL_CONFIG for a value with no canonical form (a function, a symbol,
 *   a class instance, a `Date`, a cycle, a `Map` with non-string keys); `details.path` is its key path
 */
export function canonicalJson(config: unknown): string {
  try {
    return pyJsonDumps(prepare(config, new Set()), { sortKeys: true, reject: describeRejected });
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_INVALID_ARGUMENT')) {
      const details = e.details as { path?: string; kind?: string } | undefined;
      throw new ExecutorError(
        'EXECUTOR_UNCANONICAL_CONFIG',
        `cannot fingerprint the config: ${details?.kind ?? 'a value'} at "${details?.path ?? ''}" has no canonical JSON form`,
        { cause: e, details: { path: details?.path ?? '', kind: details?.kind } },
      );
    }
    throw e;
  }
}

/** Marin's fingerprint of a canonical payload: the first 8 hex digits of its md5. */
export function fingerprintHash(payload: string): string {
  return createHash('md5').update(payload, 'utf8').digest('hex').slice(0, 8);
}

function describeRejected(value: object): string | undefined {
  if (value instanceof Set || value instanceof Map || Array.isArray(value) || FloatValue.is(value) || value instanceof StoragePath) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return undefined;
  return `a ${value.constructor?.name ?? 'class'} instance`;
}

/** Rewrites `Set`s to Marin's `{"__set__": sorted}` form; everything else passes through for pyJsonDumps. */
function prepare(value: unknown, stack: Set<object>): unknown {
  if (typeof value !== 'object' || value === null || FloatValue.is(value) || value instanceof StoragePath) return value;
  if (stack.has(value)) return value; // pyJsonDumps reports the cycle with its path
  stack.add(value);
  try {
    if (value instanceof Set) {
      const members = [...(value as Set<unknown>)].map((m) => prepare(m, stack));
      const keyed = members.map((m) => ({ m, key: pyJsonDumps(m, { sortKeys: true, reject: describeRejected }) }));
      keyed.sort((a, b) => compareCodePoints(a.key, b.key));
      return { __set__: keyed.map((k) => k.m) };
    }
    if (Array.isArray(value)) return value.map((v) => prepare(v, stack));
    if (value instanceof Map) {
      const out = new Map<unknown, unknown>();
      for (const [k, v] of value) out.set(k, prepare(v, stack));
      return out;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = prepare(v, stack);
    return out;
  } finally {
    stack.delete(value);
  }
}
