import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { localPathOf, schemeOf } from '@marin/rigging';

/**
 * `scheme://bucket/key` with empty and `.` segments dropped and no trailing slash; `gcs://` is
 * spelled `gs://`. `gs://b//x/./y/` and `gs://b/x/y` are one path. `..` stays literal, as object
 * keys keep it (rigging's `StoragePath` does the same).
 */
export function normalizeUrl(url: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/s.exec(url);
  if (m === null) return url;
  const scheme = m[1]!.toLowerCase() === 'gcs' ? 'gs' : m[1]!.toLowerCase();
  const segments: string[] = [];
  for (const s of m[2]!.split('/')) {
    if (s === '' || s === '.') continue;
    segments.push(s);
  }
  return `${scheme}://${segments.join('/')}`;
}

async function realpathLoose(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
    const parent = dirname(path);
    return parent === path ? path : join(await realpathLoose(parent), basename(path));
  }
}

/**
 * The one comparable spelling of a step output path, prefix or reference:
 * - local paths and `file://` URLs: absolute, `//` `/./` `..` resolved, and symlinks resolved
 *   (`realpath` of the longest existing ancestor, the missing rest appended);
 * - URLs (`gs://`, `memory://`, …): {@link normalizeUrl}.
 *
 * @example
 * await canonicalPath('/tmp/link//outputs/./a-123/') // '/tmp/real/outputs/a-123'
 */
export async function canonicalPath(path: string): Promise<string> {
  const scheme = schemeOf(path);
  if (scheme !== null && scheme !== 'file') return normalizeUrl(path);
  return realpathLoose(resolve(scheme === 'file' ? localPathOf(path) : path));
}

/** Whether `path` is `root` or below it; both canonical. */
export function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}
