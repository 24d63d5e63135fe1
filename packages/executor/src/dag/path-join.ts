/**
 * Joins two path pieces with Python's `os.path.join` semantics (POSIX).
 *
 * `b` starting with `/` replaces `a`; otherwise `a + "/" + b`, without a doubled slash when `a` is
 * empty or already ends with `/`. URLs are joined as plain strings (`gs://b` + `x` → `gs://b/x`).
 */
export function pathJoin(a: string, b: string): string {
  if (b.startsWith('/')) return b;
  if (a === '' || a.endsWith('/')) return a + b;
  return `${a}/${b}`;
}

/** `pathJoin(path, name)` when `name` is non-empty, else `path` (how placeholders attach sub-names). */
export function joinName(path: string, name: string | null): string {
  return name === null || name === '' ? path : pathJoin(path, name);
}
