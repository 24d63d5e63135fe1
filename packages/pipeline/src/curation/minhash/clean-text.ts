// ASCII punctuation, exactly Python's `string.punctuation`, which Marin's SlimPajama cleaning strips.
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
// Python's `\s` in a str pattern: Unicode whitespace plus the ASCII separators \x1c-\x1f.
const WHITESPACE_RUN = /[\s\x1c-\x1f\x85]+/g;

/**
 * Marin's MinHash text cleaning (SlimPajama's): lowercase, drop ASCII punctuation, collapse whitespace runs to
 * one space, trim.
 */
export function cleanText(text: string): string {
  return text.toLowerCase().replace(PUNCTUATION, '').replace(WHITESPACE_RUN, ' ').trim();
}

/** The words of a cleaned text (split on single spaces; empty text has none). */
export function cleanWords(text: string): string[] {
  const cleaned = cleanText(text);
  return cleaned === '' ? [] : cleaned.split(' ');
}
