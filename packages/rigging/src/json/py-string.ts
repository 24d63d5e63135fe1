const SAFE_RE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x08: '\\b',
  0x0c: '\\f',
};

/**
 * Quotes `s` exactly as Python's `json.dumps` does with `ensure_ascii=True`.
 *
 * Every UTF-16 code unit outside printable ASCII becomes `\uXXXX` in lower-case hex, so astral
 * characters come out as surrogate pairs and DEL as `\u007f`; `/` is not escaped.
 */
export function pyQuote(s: string): string {
  if (SAFE_RE.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (c >= 0x20 && c <= 0x7e) out += s[i];
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

/**
 * Orders two strings by Unicode code point, as Python's `sorted()` does for `str`.
 *
 * `Array.prototype.sort` compares UTF-16 code units, which puts an astral character (a surrogate,
 * 0xD800–0xDFFF) before U+E000–U+FFFF; Python puts it after.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates move above U+E000–U+FFFF; everything else keeps its relative order.
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

const SURROGATE_RE = /[\ud800-\udfff]/;
/** Up to this many keys are sorted by insertion. */
const SMALL_SORT = 12;

/**
 * Sorts `keys` in place by code point. A few keys are sorted by insertion with {@link compareCodePoints};
 * more, without surrogates (UTF-16 order then already is code-point order), with the engine's native
 * comparison; otherwise with {@link compareCodePoints}.
 */
export function sortByCodePoint(keys: string[]): string[] {
  if (keys.length <= SMALL_SORT) {
    // The few keys of a typical object: an insertion sort by code point beats the engine's sort set-up.
    for (let i = 1; i < keys.length; i++) {
      const k = keys[i] as string;
      let j = i - 1;
      while (j >= 0 && compareCodePoints(keys[j] as string, k) > 0) {
        keys[j + 1] = keys[j] as string;
        j--;
      }
      keys[j + 1] = k;
    }
    return keys;
  }
  for (const k of keys) if (SURROGATE_RE.test(k)) return keys.sort(compareCodePoints);
  return keys.sort();
}
