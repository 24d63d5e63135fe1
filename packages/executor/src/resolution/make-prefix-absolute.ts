import { resolve } from 'node:path';
import { schemeOf } from '@marin/rigging';
import { pathJoin } from '../dag/path-join.js';

/** True when `path` carries a URL scheme (`gs://…`, `mirror://…`, `file://…`), as rigging parses it. */
export function hasScheme(path: string): boolean {
  return schemeOf(path) !== null;
}

/**
 * Makes `path` absolute against `prefix`: a relative path (no `scheme://`, no leading `/`) is joined
 * to the prefix; an absolute path or a URL is returned as given.
 *
 * @example
 * makePrefixAbsolute('gs://bucket', 'raw/data'); // 'gs://bucket/raw/data'
 * makePrefixAbsolute('gs://bucket', '/mnt/x');   // '/mnt/x'
 */
export function makePrefixAbsolute(prefix: string, path: string): string {
  if (hasScheme(path) || path.startsWith('/')) return path;
  return pathJoin(prefix, path);
}

/**
 * The prefix an executor works under: a relative local prefix becomes an absolute path (against the
 * working directory); URLs and absolute paths are returned unchanged. Marin keeps relative prefixes
 * relative, so status and data paths split when the working directory changes (issue #6334); the
 * hash never depends on the prefix either way.
 */
export function absolutePrefix(prefix: string): string {
  if (hasScheme(prefix) || prefix.startsWith('/')) return prefix;
  return resolve(prefix);
}
