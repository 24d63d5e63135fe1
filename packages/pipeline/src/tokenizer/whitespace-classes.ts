// Levanter splits long texts with two different regex engines, and their `\s` classes differ from each
// other and from JavaScript's (which adds U+FEFF and drops U+001C–U+001F and U+0085). Both sets below
// were enumerated over every code point with the interpreter Levanter runs on (Python 3.11, Unicode 14).

/**
 * True when code point `cp` matches `\s` in Python's `re` module on a `str` pattern (`str.isspace()`):
 * the characters whose bidirectional class is WS, B or S, or whose category is Zs.
 */
export function isPythonReSpace(cp: number): boolean {
  if (cp <= 0x20) return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20);
  if (cp < 0x85) return false;
  return cp === 0x85 || isSharedNonAsciiSpace(cp);
}

/**
 * True when code point `cp` matches `\s` in the third-party `regex` module (the Unicode `White_Space`
 * property). Unlike {@link isPythonReSpace} it excludes the separators U+001C–U+001F.
 */
export function isUnicodeWhiteSpace(cp: number): boolean {
  if (cp <= 0x20) return (cp >= 0x09 && cp <= 0x0d) || cp === 0x20;
  if (cp < 0x85) return false;
  return cp === 0x85 || isSharedNonAsciiSpace(cp);
}

function isSharedNonAsciiSpace(cp: number): boolean {
  if (cp < 0x1680) return cp === 0xa0;
  if (cp < 0x2000) return cp === 0x1680;
  if (cp <= 0x200a) return true;
  return cp === 0x2028 || cp === 0x2029 || cp === 0x202f || cp === 0x205f || cp === 0x3000;
}
