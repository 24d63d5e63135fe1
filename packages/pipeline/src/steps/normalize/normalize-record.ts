import { createXXHash128 } from 'hash-wasm';

/** Marin's default cap on a whitespace run: the longest run Llama's tokenizer folds into one token. */
export const DEFAULT_MAX_WHITESPACE_RUN_CHARS = 128;

// Python's `\s` on a str pattern (str.isspace()): JavaScript's `\s` differs (it adds U+FEFF and drops
// U+001C–U+001F and U+0085), and Marin compacts with Python's.
const PY_SPACE = '\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_SPACE_ONLY = new RegExp(`^[${PY_SPACE}]*$`);
const runPatterns = new Map<number, RegExp>();

const hasher = await createXXHash128();
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
  return hasher.init().update(utf8).digest('hex');
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
