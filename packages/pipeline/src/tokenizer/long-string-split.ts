import { advanceCodePoints } from './safe-split.js';
import { isUnicodeWhiteSpace } from './whitespace-classes.js';

/** Levanter's `LONG_STRING_WORKAROUND`: the piece length at which `BatchTokenizer` may split a text. */
export const LONG_STRING_WORKAROUND = 10_000;

/**
 * The pieces Levanter's `BatchTokenizer._encode_long_string` encodes for one text: from each piece's
 * start, skip `workaroundLen` code points, then cut before the next whitespace character (the `regex`
 * module's `\s`, the Unicode White_Space property); the last piece runs to the end. A text of at most
 * `workaroundLen` code points comes back as `[text]`.
 */
export function splitLongString(text: string, workaroundLen: number = LONG_STRING_WORKAROUND): string[] {
  const n = text.length;
  if (n <= workaroundLen) return [text];
  const pieces: string[] = [];
  let pos = 0;
  while (pos < n) {
    const searchFrom = advanceCodePoints(text, pos, workaroundLen);
    let split = n;
    // Reaching the end within `workaroundLen` code points is Python's `n - pos <= workaround_len`.
    for (let i = searchFrom; i < n; ) {
      const cp = text.codePointAt(i) as number;
      if (isUnicodeWhiteSpace(cp)) {
        split = i;
        break;
      }
      i += cp > 0xffff ? 2 : 1;
    }
    pieces.push(text.slice(pos, split));
    pos = split;
  }
  return pieces;
}
