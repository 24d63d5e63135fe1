import { compileGlob, expandBraces } from '@marin/rigging';

/**
 * The files whose repository-relative `path` matches any of `globs` (braces expanded; `*` and `?`
 * stay within a segment, `**` spans segments), in their original order. No globs keeps every file.
 *
 * @example filterByGlobs(files, ['data/*.jsonl.gz', '**\/README.md'])
 */
export function filterByGlobs<T extends { path: string }>(files: readonly T[], globs: readonly string[]): T[] {
  if (globs.length === 0) return [...files];
  const patterns = globs.flatMap((g) => expandBraces(g)).map((g) => compileGlob(g.replace(/^\.\//, '')));
  return files.filter((f) => patterns.some((re) => re.test(f.path)));
}
