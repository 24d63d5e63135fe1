import { FloatValue } from './float-value.js';

/**
 * True for a JSON object as `JSON.parse` gives it: an object that is not `null` and not an array. Anything else
 * with string keys (a class instance, a `Map`) passes too; use it on parsed JSON.
 */
export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * True for an object to walk key by key in a Python-JSON value (what `parsePyJson` returns or `pyJsonDumps`
 * writes): a {@link isRecord} that is not a `FloatValue` (a float leaf) or a `Map` (written as a dict, but its
 * entries are not its keys).
 */
export function isPyJsonObject(x: unknown): x is Record<string, unknown> {
  return isRecord(x) && !FloatValue.is(x) && !(x instanceof Map);
}
