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

/** The words of {@link cleanText}'s result (none for an empty text), without building the collapsed string. */
export function cleanWords(text: string): string[] {
  const words = text.toLowerCase().replace(PUNCTUATION, '').split(WHITESPACE_RUN);
  if (words[0] === '') words.shift();
  if (words.length > 0 && words[words.length - 1] === '') words.pop();
  return words;
}
