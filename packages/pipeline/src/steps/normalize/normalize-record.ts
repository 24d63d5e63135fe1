import { createXxh3Hasher, type Xxh3Backend } from './xxh3-128.js';

/** Marin's default cap on a whitespace run: the longest run Llama's tokenizer folds into one token. */
export const DEFAULT_MAX_WHITESPACE_RUN_CHARS = 128;

// Python's `\s` on a str pattern (str.isspace()): JavaScript's `\s` differs (it adds U+FEFF and drops
// U+001C–U+001F and U+0085), and Marin compacts with Python's.
const PY_SPACE = '\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_SPACE_ONLY = new RegExp(`^[${PY_SPACE}]*$`);
const runPatterns = new Map<number, RegExp>();

const hasher = await createXxh3Hasher();
const encoder = new TextEncoder();

/**
 * The document id Marin's datakit gives `text`: xxh3-128 of its UTF-8 bytes, as 32 zero-padded
 * lowercase hex digits (`format(xxh3_128(text.encode()), "032x")`).
 */
export function generateId(text: string): string {
  return generateIdOfUtf8(encoder.encode(text));
}

/** {@link generateId} of a text already encoded as UTF-8 (normalize encodes each text once, for the id and the output). */
export function generateIdOfUtf8(utf8: Uint8Array): string {
  return hasher.hex128(utf8);
}

/** The xxh3-128 implementation behind the ids: the optional peer xxhash-addon when it loads, hash-wasm otherwise. */
export function idHashBackend(): Xxh3Backend {
  return hasher.backend;
}

/** True when `text` is empty or only whitespace (Python's `str.strip() == ""`). */
export function isBlank(text: string): boolean {
  return PY_SPACE_ONLY.test(text);
}

/** True for the characters of Python's `str.isspace()` set ({@link PY_SPACE}). */
function isPySpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c >= 0x1c;
  if (c < 0x85) return false;
  if (c < 0x1680) return c === 0x85 || c === 0xa0;
  return c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/**
 * True when `text` has a whitespace run longer than `maxRun`. Every run of `maxRun + 1` characters
 * covers a multiple of `maxRun + 1`, so only the characters at those positions are probed, and a run is
 * measured only around a probe that hits whitespace: about `length / maxRun` reads for ordinary text.
 */
function hasLongRun(text: string, maxRun: number): boolean {
  const step = maxRun + 1;
  const n = text.length;
  for (let i = maxRun; i < n; i += step) {
    if (!isPySpace(text.charCodeAt(i))) continue;
    let start = i;
    while (start > 0 && isPySpace(text.charCodeAt(start - 1))) start -= 1;
    let end = i + 1;
    while (end < n && end - start <= maxRun && isPySpace(text.charCodeAt(end))) end += 1;
    if (end - start > maxRun) return true;
  }
  return false;
}

/**
 * The length in bytes of the UTF-8 character starting at `i` when it is whitespace (Python's set),
 * else 0. Python's whitespace is at most 3 bytes long in UTF-8.
 */
function spaceBytesAt(utf8: Uint8Array, i: number): number {
  const b0 = utf8[i] as number;
  if (b0 < 0x80) return isPySpace(b0) ? 1 : 0;
  if (b0 < 0xc2 || b0 > 0xe3 || i + 1 >= utf8.length) return 0;
  const b1 = (utf8[i + 1] as number) & 0x3f;
  if (b0 < 0xe0) return isPySpace(((b0 & 0x1f) << 6) | b1) ? 2 : 0;
  if (i + 2 >= utf8.length) return 0;
  return isPySpace(((b0 & 0x0f) << 12) | (b1 << 6) | ((utf8[i + 2] as number) & 0x3f)) ? 3 : 0;
}

/** {@link isBlank} of a text given as (valid) UTF-8. */
export function isBlankUtf8(utf8: Uint8Array): boolean {
  let i = 0;
  while (i < utf8.length) {
    const n = spaceBytesAt(utf8, i);
    if (n === 0) return false;
    i += n;
  }
  return true;
}

function charStart(utf8: Uint8Array, i: number): number {
  let s = i;
  while (s > 0 && ((utf8[s] as number) & 0xc0) === 0x80) s -= 1;
  return s;
}

/**
 * True when the (valid) UTF-8 text has a whitespace run of more than `maxRun` characters: such a run
 * spans at least `maxRun + 1` bytes, so only every `(maxRun + 1)`-th byte is probed, and runs are
 * counted in characters around a probe that falls in a whitespace character.
 */
export function hasLongSpaceRunUtf8(utf8: Uint8Array, maxRun: number): boolean {
  const step = maxRun + 1;
  const n = utf8.length;
  for (let i = maxRun; i < n; i += step) {
    const b = utf8[i] as number;
    if (b < 0x80 && !isPySpace(b)) continue;
    const at = b < 0x80 ? i : charStart(utf8, i);
    const len = spaceBytesAt(utf8, at);
    if (len === 0) continue;
    let count = 1;
    let start = at;
    while (start > 0 && count <= maxRun) {
      const prev = charStart(utf8, start - 1);
      if (spaceBytesAt(utf8, prev) !== start - prev) break;
      start = prev;
      count += 1;
    }
    let end = at + len;
    while (end < n && count <= maxRun) {
      const next = spaceBytesAt(utf8, end);
      if (next === 0) break;
      end += next;
      count += 1;
    }
    if (count > maxRun) return true;
  }
  return false;
}

/**
 * Cuts every run of more than `maxRun` whitespace characters (Python's set) down to its first `maxRun`
 * characters, as Marin's normalize does; returns `text` itself when nothing changes.
 */
export function compactWhitespace(text: string, maxRun: number): string {
  if (!hasLongRun(text, maxRun)) return text;
  let re = runPatterns.get(maxRun);
  if (re === undefined) {
    re = new RegExp(`[${PY_SPACE}]{${maxRun + 1},}`, 'g');
    runPatterns.set(maxRun, re);
  }
  re.lastIndex = 0;
  return text.replace(re, (run) => run.slice(0, maxRun));
}
