/**
 * Non-enumerable marker that `parsePyJson` puts on objects whose keys JavaScript would reorder.
 *
 * JavaScript enumerates integer-like keys (`"0"`, `"17"`) first, in numeric order; Python dicts keep
 * insertion order. The marker holds the file's key order so that `pyJsonDumps` (without `sortKeys`)
 * writes the keys back in that order.
 */
export const PY_KEY_ORDER: unique symbol = Symbol('@marin/rigging/pyKeyOrder');

const INDEX_KEY_RE = /^(?:0|[1-9]\d{0,9})$/;

/** True for keys that JavaScript objects enumerate before all others (array-index-like keys). */
export function isIndexLikeKey(key: string): boolean {
  return INDEX_KEY_RE.test(key) && Number(key) < 2 ** 32 - 1;
}

/** The record's keys in the order `pyJsonDumps` writes them: the parsed file order, when known. */
export function orderedKeys(record: object): string[] {
  const keys = Object.keys(record);
  const order = (record as { [PY_KEY_ORDER]?: readonly string[] })[PY_KEY_ORDER];
  if (order === undefined) return keys;
  const present = new Set(keys);
  const out = order.filter((k) => present.has(k));
  if (out.length !== keys.length) {
    const seen = new Set(out);
    for (const k of keys) if (!seen.has(k)) out.push(k);
  }
  return out;
}
