import { RiggingError } from '../errors.js';
import { StoragePath } from '../fs/storage-path.js';
import { FloatValue } from './float-value.js';
import { pyFloatRepr, pyIntRepr } from './py-float-repr.js';
import { orderedKeys } from './py-key-order.js';
import { pyQuote, sortByCodePoint } from './py-string.js';

/** Options of {@link pyJsonDumps}. */
export interface PyJsonDumpsOptions {
  /** Sort object keys recursively by Unicode code point (Python `sort_keys=True`). @default false */
  sortKeys?: boolean;
  /**
   * Pretty-print with this many spaces per level (Python `indent=n`: items end with `,`, keys use
   * `": "`). `null` or absent means compact mode with `", "` and `": "` separators.
   * @default null
   */
  indent?: number | null;
  /**
   * Strict mode throws on anything JSON cannot represent (functions, symbols, `Set`s, built-in class
   * instances, cycles, non-string `Map` keys, values refused by `reject`). Lenient mode never throws:
   * it writes functions as `"<function NAME>"`, `Set`s as arrays, `Date`s as ISO strings and anything
   * else as `String(x)`, with one warning per kind of value.
   * @default true
   */
  strict?: boolean;
  /**
   * Extra refusal hook: return a short description (e.g. `"an ExecutorStep"`) to refuse an object,
   * or `undefined` to serialize it normally. Called for every class instance other than arrays,
   * `Map`s and `Set`s (never for plain objects).
   */
  reject?: (value: object) => string | undefined;
  /** Receives lenient-mode warnings. @default writes one line to stderr */
  onWarning?: (message: string) => void;
}

/** One key-path step: an object key or an array index. */
export type PyJsonPathSegment = string | number;

const BUILTIN_CTORS: readonly (abstract new (...args: never[]) => unknown)[] = [
  Date, RegExp, URL, Error, Promise, ArrayBuffer, WeakMap, WeakSet, WeakRef, Boolean, Number, String,
];

/** True for instances of built-in classes that JSON has no form for (`Date`, `RegExp`, buffers…). */
export function isBuiltinInstance(x: object): boolean {
  const proto: unknown = Object.getPrototypeOf(x);
  if (proto === Object.prototype || proto === null) return false;
  if (ArrayBuffer.isView(x)) return true;
  for (const ctor of BUILTIN_CTORS) if (x instanceof ctor) return true;
  return typeof SharedArrayBuffer !== 'undefined' && x instanceof SharedArrayBuffer;
}

/** Renders a key path as `a.b[0].c` (the root is `""`). */
export function formatPyJsonPath(segments: readonly PyJsonPathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

function kindOf(x: unknown): string {
  if (typeof x === 'function') return 'function';
  if (typeof x === 'symbol') return 'symbol';
  if (typeof x === 'object' && x !== null) return x.constructor?.name ?? 'object';
  return typeof x;
}

interface Writer {
  sortKeys: boolean;
  indent: string | null;
  strict: boolean;
  reject: ((value: object) => string | undefined) | undefined;
  warn: (message: string) => void;
  warned: Set<string>;
  stack: Set<object>;
  path: PyJsonPathSegment[];
}

function fail(w: Writer, what: string, extra: Record<string, unknown> = {}): never {
  const path = formatPyJsonPath(w.path);
  throw new RiggingError(
    'RIGGING_INVALID_ARGUMENT',
    `cannot serialize ${what} at "${path}" as JSON`,
    { details: { path, segments: [...w.path], kind: what, ...extra } },
  );
}

function lenient(w: Writer, kind: string, text: string): string {
  if (!w.warned.has(kind)) {
    w.warned.add(kind);
    w.warn(`pyJsonDumps: writing ${kind} values as strings (first at "${formatPyJsonPath(w.path)}")`);
  }
  return pyQuote(text);
}

function sep(w: Writer, depth: number): string {
  return w.indent === null ? '' : `\n${w.indent.repeat(depth)}`;
}

function writeEntries(w: Writer, keys: string[], get: (key: string) => unknown, depth: number): string {
  if (keys.length === 0) return '{}';
  if (w.sortKeys) sortByCodePoint(keys);
  const itemSep = w.indent === null ? ', ' : ',';
  const inner = sep(w, depth + 1);
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    w.path.push(k);
    out += `${i === 0 ? '' : itemSep}${inner}${pyQuote(k)}: ${write(w, get(k), depth + 1)}`;
    w.path.pop();
  }
  return `${out}${sep(w, depth)}}`;
}

function writeItems(w: Writer, items: Iterable<unknown>, depth: number): string {
  const itemSep = w.indent === null ? ', ' : ',';
  const inner = sep(w, depth + 1);
  let out = '[';
  let i = 0;
  for (const v of items) {
    w.path.push(i);
    out += `${i === 0 ? '' : itemSep}${inner}${write(w, v, depth + 1)}`;
    w.path.pop();
    i++;
  }
  return i === 0 ? '[]' : `${out}${sep(w, depth)}]`;
}

function writeMap(w: Writer, m: Map<unknown, unknown>, depth: number): string {
  const byKey = new Map<string, unknown>();
  for (const [k, v] of m) {
    if (typeof k !== 'string' && w.strict) fail(w, `a Map key of type ${kindOf(k)}`, { key: String(k) });
    byKey.set(typeof k === 'string' ? k : String(k), v);
  }
  return writeEntries(w, [...byKey.keys()], (k) => byKey.get(k), depth);
}

function writeObject(w: Writer, x: object, depth: number): string {
  const proto: unknown = Object.getPrototypeOf(x);
  if (proto === Object.prototype || proto === null) {
    // Plain records are by far the most common objects: skip the class checks below.
    const record = x as Record<string, unknown>;
    return writeEntries(w, w.sortKeys ? Object.keys(record) : orderedKeys(record), (k) => record[k], depth);
  }
  if (Array.isArray(x)) return writeItems(w, x, depth);
  if (x instanceof Map) return writeMap(w, x, depth);
  if (x instanceof Set) {
    if (w.strict) fail(w, 'a Set');
    if (!w.warned.has('Set')) {
      w.warned.add('Set');
      w.warn(`pyJsonDumps: writing Set values as arrays (first at "${formatPyJsonPath(w.path)}")`);
    }
    return writeItems(w, x, depth);
  }
  const refused = w.reject?.(x);
  if (refused !== undefined) {
    if (w.strict) fail(w, refused);
    return lenient(w, kindOf(x), String(x));
  }
  if (isBuiltinInstance(x)) {
    if (w.strict) fail(w, `a ${kindOf(x)} instance`);
    if (x instanceof Date) return lenient(w, 'Date', Number.isNaN(x.getTime()) ? String(x) : x.toISOString());
    return lenient(w, kindOf(x), String(x));
  }
  const record = x as Record<string, unknown>;
  return writeEntries(w, Object.keys(record), (k) => record[k], depth);
}

/** The text of a string, number, boolean, `undefined` or bigint; `undefined` for anything else. */
function writeScalar(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return pyQuote(v);
    case 'number':
      return Number.isInteger(v) ? pyIntRepr(v) : pyFloatRepr(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return 'null';
    case 'bigint':
      return v.toString();
    default:
      return undefined;
  }
}

function write(w: Writer, v: unknown, depth: number): string {
  const scalar = writeScalar(v);
  if (scalar !== undefined) return scalar;
  switch (typeof v) {
    case 'function':
      if (w.strict) fail(w, 'a function');
      return lenient(w, 'function', `<function ${v.name === '' ? '<anonymous>' : v.name}>`);
    case 'symbol':
      if (w.strict) fail(w, 'a symbol');
      return lenient(w, 'symbol', String(v));
  }
  if (v === null) return 'null';
  const obj = v as object;
  if (FloatValue.is(obj)) return pyFloatRepr(obj.value);
  if (obj instanceof StoragePath) return pyQuote(obj.toString());
  if (w.stack.has(obj)) {
    if (w.strict) fail(w, 'a cyclic reference');
    return lenient(w, 'cycle', '<circular reference>');
  }
  w.stack.add(obj);
  try {
    return writeObject(w, obj, depth);
  } finally {
    w.stack.delete(obj);
  }
}

/** Past this depth the fast writer hands over to the general one (which also reports cycles). */
const MAX_FAST_DEPTH = 64;

/** `pads[d]` is `\n` and `d` indents, per indent width, up to the fast writer's depth. */
const padCache = new Map<number, string[]>();

function padsFor(indent: number): string[] {
  let pads = padCache.get(indent);
  if (pads === undefined) {
    pads = [];
    for (let d = 0; d <= MAX_FAST_DEPTH + 2; d++) pads.push(`\n${' '.repeat(indent * d)}`);
    padCache.set(indent, pads);
  }
  return pads;
}

/**
 * The text of a value made only of JSON's own values (strings, numbers, booleans, null/undefined, bigints,
 * `FloatValue`s, `StoragePath`s, arrays and plain objects) — nearly every value written — in one pass without
 * the general writer's key-path and cycle bookkeeping; `undefined` when anything else occurs (a `Map`, a `Set`,
 * a class instance, a function, a symbol, a very deep or cyclic value), and the general writer writes it,
 * warns or reports the error. Both write the same bytes.
 */
function writeFast(v: unknown, sortKeys: boolean, pads: string[] | null, depth: number): string | undefined {
  const scalar = writeScalar(v);
  if (scalar !== undefined) return scalar;
  if (typeof v !== 'object') return undefined;
  if (v === null) return 'null';
  if (FloatValue.is(v)) return pyFloatRepr(v.value);
  if (depth > MAX_FAST_DEPTH) return undefined;
  let inner = '';
  let outer = '';
  if (pads !== null) {
    inner = pads[depth + 1] as string;
    outer = pads[depth] as string;
  }
  const itemSep = pads === null ? ', ' : ',';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const item = writeFast(v[i], sortKeys, pads, depth + 1);
      if (item === undefined) return undefined;
      out += i === 0 ? `${inner}${item}` : `${itemSep}${inner}${item}`;
    }
    return `${out}${outer}]`;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v instanceof StoragePath ? pyQuote(v.toString()) : undefined;
  const record = v as Record<string, unknown>;
  const keys = sortKeys ? sortByCodePoint(Object.keys(record)) : orderedKeys(record);
  if (keys.length === 0) return '{}';
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const item = writeFast(record[k], sortKeys, pads, depth + 1);
    if (item === undefined) return undefined;
    out += `${i === 0 ? '' : itemSep}${inner}${pyQuote(k)}: ${item}`;
  }
  return `${out}${outer}}`;
}

function stderrWarning(message: string): void {
  process.stderr.write(`${message}\n`);
}

/**
 * Serializes `value` byte for byte as CPython's `json.dumps` would (the executor hashes this text).
 *
 * Compact mode uses `", "` / `": "`; `sortKeys` orders keys by code point; integers print as exact
 * digits and non-integers (and {@link FloatValue}s) with Python's float repr; strings are escaped
 * with `ensure_ascii`; `undefined` is `null`; `bigint` prints its digits; a `StoragePath` is its string
 * form; records, `Map`s with string keys and arrays nest. The text never ends with a newline.
 *
 * @example
 * pyJsonDumps({ b: float(1), a: [1e-5, 'é'] }, { sortKeys: true }); // '{"a": [1e-05, "\\u00e9"], "b": 1.0}'
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT in strict mode for a value JSON cannot represent;
 *   `details.path` is the key path (`a.b[0]`) and `details.segments` its parts.
 */
export function pyJsonDumps(value: unknown, options: PyJsonDumpsOptions = {}): string {
  const indent = options.indent ?? null;
  if (indent !== null && (!Number.isInteger(indent) || indent < 0)) {
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `indent must be a non-negative integer, got ${indent}`, {
      details: { indent },
    });
  }
  const sortKeys = options.sortKeys ?? false;
  const fast = writeFast(value, sortKeys, indent === null ? null : padsFor(indent), 0);
  if (fast !== undefined) return fast;
  const w: Writer = {
    sortKeys,
    indent: indent === null ? null : ' '.repeat(indent),
    strict: options.strict ?? true,
    reject: options.reject,
    warn: options.onWarning ?? stderrWarning,
    warned: new Set(),
    stack: new Set(),
    path: [],
  };
  return write(w, value, 0);
}
