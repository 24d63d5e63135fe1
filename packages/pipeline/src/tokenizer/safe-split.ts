import { isPythonReSpace } from './whitespace-classes.js';

/** Longest run of whitespace, or of non-whitespace, that one encoder call may see (Python code points). */
export const MAX_HOMOGENEOUS_RUN_CHARS = 25_000;

/**
 * Splits `text` the way Levanter's `_safe_split_for_tokenizer` does before every encode: each maximal
 * run of at least 25,000 whitespace (Python `re` `\s`) or non-whitespace code points is cut into
 * 25,000-code-point pieces, and the text between such runs stays whole. Text without such a run comes
 * back as `[text]`, so normal documents encode in one call. Lengths count code points, as Python's
 * `len` does, so an astral character is one, not two.
 */
export function safeSplitForTokenizer(text: string): string[] {
  // A UTF-16 length bounds the code-point length from above, so this is Python's `len(text) <= 25_000`
  // check for every text it accepts; longer texts whose runs are all short come back whole below.
  if (text.length <= MAX_HOMOGENEOUS_RUN_CHARS) return [text];
  const parts: string[] = [];
  const n = text.length;
  let last = 0;
  let i = 0;
  while (i < n) {
    const runStart = i;
    const runIsSpace = isPythonReSpace(text.codePointAt(i) as number);
    let runChars = 0;
    while (i < n) {
      const cp = text.codePointAt(i) as number;
      if (isPythonReSpace(cp) !== runIsSpace) break;
      i += cp > 0xffff ? 2 : 1;
      runChars++;
    }
    if (runChars < MAX_HOMOGENEOUS_RUN_CHARS) continue;
    if (runStart > last) parts.push(text.slice(last, runStart));
    for (let start = runStart; start < i; ) {
      const end = advanceCodePoints(text, start, MAX_HOMOGENEOUS_RUN_CHARS, i);
      parts.push(text.slice(start, end));
      start = end;
    }
    last = i;
  }
  if (last < n) parts.push(text.slice(last));
  return parts;
}

/** The UTF-16 index `count` code points after `from`, or `limit` if that comes first. */
export function advanceCodePoints(text: string, from: number, count: number, limit: number = text.length): number {
  let i = from;
  for (let c = 0; c < count && i < limit; c++) i += (text.codePointAt(i) as number) > 0xffff ? 2 : 1;
  return i;
}
