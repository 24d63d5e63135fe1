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
  return hasher.init().update(encoder.encode(text)).digest('hex');
}

/** True when `text` is empty or only whitespace (Python's `str.strip() == ""`). */
export function isBlank(text: string): boolean {
  return PY_SPACE_ONLY.test(text);
}

/**
 * Cuts every run of more than `maxRun` whitespace characters (Python's set) down to its first `maxRun`
 * characters, as Marin's normalize does; returns `text` itself when nothing changes.
 */
export function compactWhitespace(text: string, maxRun: number): string {
  let re = runPatterns.get(maxRun);
  if (re === undefined) {
    re = new RegExp(`[${PY_SPACE}]{${maxRun + 1},}`, 'g');
    runPatterns.set(maxRun, re);
  }
  re.lastIndex = 0;
  if (!re.test(text)) return text;
  re.lastIndex = 0;
  return text.replace(re, (run) => run.slice(0, maxRun));
}
