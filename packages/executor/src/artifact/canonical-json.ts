import * as crypto from 'node:crypto';
import { compareCodePoints, FloatValue, pyFloatRepr, pyIntRepr, pyJsonDumps, pyQuote, RiggingError, sortByCodePoint, StoragePath } from '@marin/rigging';
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
  const fast = writeCommonText(config);
  if (fast !== undefined) return fast;
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

/** Past this depth the common-case writer hands over to the general one (which also reports cycles). */
const MAX_FAST_DEPTH = 64;

/** Strings JSON writes between quotes as they are (printable ASCII but `"` and `\\`). */
const SAFE_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The pieces of the text being written, joined once at the end: one flat string per payload instead of a rope
 * of intermediate concatenations (planning 10,000 artifacts allocated ~8 MB of those). Reused by every call
 * (writing is synchronous and never re-entered).
 */
const parts: string[] = [];
/** How many of {@link parts} the current text has (the array keeps its length between texts: no re-growth). */
let count = 0;
let writing = false;

/** {@link writeCommon} of a whole config, joined; `undefined` when the general writer must take over. */
function writeCommonText(config: unknown): string | undefined {
  if (writing) return undefined; // re-entered (from a getter, say): the general writer serves the inner call
  writing = true;
  count = 0;
  try {
    if (!writeCommon(config, 0)) return undefined;
    // Pieces left from a longer text are blanked, not cut: cutting the length would give back the array's store.
    if (parts.length > count) {
      if (parts.length > 2 * count + 64) parts.length = count;
      else parts.fill('', count);
    }
    return parts.join('');
  } finally {
    writing = false;
  }
}

function push(s: string): void {
  parts[count++] = s;
}

function pushString(s: string): void {
  if (SAFE_STRING.test(s)) {
    parts[count++] = '"';
    parts[count++] = s;
    parts[count++] = '"';
  } else parts[count++] = pyQuote(s);
}

/**
 * Writes the canonical JSON of a config made only of JSON's own values (strings, numbers, booleans,
 * null/undefined, bigints, `FloatValue`s, `StoragePath`s, arrays and plain objects) — nearly every config — into
 * {@link parts} in one pass without the general writer's key-path bookkeeping; `false` when anything else occurs
 * (a `Set`, a `Map`, a class instance, a function, a very deep or cyclic value), and the general path writes it or
 * reports the error. Both produce the same bytes: `pyJsonDumps(…, {sortKeys: true})`.
 */
function writeCommon(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
      pushString(v);
      return true;
    case 'number':
      push(Number.isInteger(v) ? pyIntRepr(v) : pyFloatRepr(v));
      return true;
    case 'boolean':
      push(v ? 'true' : 'false');
      return true;
    case 'undefined':
      push('null');
      return true;
    case 'bigint':
      push(v.toString());
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) {
    push('null');
    return true;
  }
  if (depth > MAX_FAST_DEPTH) return false;
  if (Array.isArray(v)) {
    push('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) push(', ');
      if (!writeCommon(v[i], depth + 1)) return false;
    }
    push(']');
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    if (FloatValue.is(v)) push(pyFloatRepr(v.value));
    else if (v instanceof StoragePath) pushString(v.toString());
    else return false;
    return true;
  }
  const record = v as Record<string, unknown>;
  const keys = sortByCodePoint(Object.keys(record));
  push('{');
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (i > 0) push(', ');
    pushString(k);
    push(': ');
    if (!writeCommon(record[k], depth + 1)) return false;
  }
  push('}');
  return true;
}

/** Marin's fingerprint of a canonical payload: the first 8 hex digits of its md5. */
export function fingerprintHash(payload: string): string {
  return md5Hex(payload).slice(0, 8);
}

/** One-shot `crypto.hash` (Node ≥ 20.12) skips the Hash object a digest of one short string does not need. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

function md5Hex(text: string): string {
  return oneShotHash !== undefined ? oneShotHash('md5', text, 'hex') : crypto.createHash('md5').update(text, 'utf8').digest('hex');
}

function describeRejected(value: object): string | undefined {
  if (value instanceof Set || value instanceof Map || Array.isArray(value) || FloatValue.is(value) || value instanceof StoragePath) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return undefined;
  return `a ${value.constructor?.name ?? 'class'} instance`;
}

/**
 * Rewrites `Set`s to Marin's `{"__set__": sorted}` form; everything else passes through for pyJsonDumps. Copy on
 * write: a value with no `Set` inside is returned as is (the common config allocates nothing here).
 */
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
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        const p = prepare(v, stack);
        if (p !== v) (out ??= value.slice())[i] = p;
      }
      return out ?? value;
    }
    if (value instanceof Map) {
      let changed = false;
      const out = new Map<unknown, unknown>();
      for (const [k, v] of value) {
        const p = prepare(v, stack);
        changed ||= p !== v;
        out.set(k, p);
      }
      return changed ? out : value;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    let out: Record<string, unknown> | null = null;
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      const v = (value as Record<string, unknown>)[k];
      const p = prepare(v, stack);
      if (p !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = p;
    }
    return out ?? value;
  } finally {
    stack.delete(value);
  }
}
