import { PipelineError } from '../../errors.js';
import type { SourceFile } from './source-file.js';

/**
 * First path segments a repository file may not have, compared case-insensitively (so a
 * case-insensitive filesystem cannot fold `.Executor_Status` onto the real one): the download
 * step's own completion markers, provenance and write probe, and the executor's artifact file.
 * Every name starting with `.executor_` (status, lease, info, and whatever the executor adds later)
 * is refused too, see {@link bookkeepingCollision}.
 */
export const RESERVED_TOP_LEVEL_NAMES: readonly string[] = ['.metrics', 'provenance.json', 'test_write_access', '.artifact.json'];

const EXECUTOR_PREFIX = '.executor_';

function unsafe(path: string, reason: string, source: string): PipelineError {
  return new PipelineError('PIPELINE_UNSAFE_PATH', `refusing listed path ${JSON.stringify(path)} from ${source}: ${reason}; nothing was written`, {
    details: { path, reason, source },
  });
}

/**
 * Why `path` cannot be a repository-relative file path, or `null` when it can: it must be a
 * non-empty `/`-separated relative path with no empty, `.` or `..` segment, no `\` and no NUL or
 * other control character.
 */
export function unsafePathReason(path: string): string | null {
  if (path === '') return 'the path is empty';
  if (path.startsWith('/')) return 'the path is absolute';
  if (path.includes('\\')) return 'the path contains a backslash';
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'the path contains a NUL or control character';
  for (const segment of path.split('/')) {
    if (segment === '') return 'the path has an empty segment';
    if (segment === '..') return 'the path has a ".." segment';
    if (segment === '.') return 'the path has a "." segment';
  }
  return null;
}

/**
 * The bookkeeping name `path` would land on, or `null`. Checked on the first segment, so neither a
 * file nor a directory of that name can appear where the step or the executor keeps its state.
 */
export function bookkeepingCollision(path: string): string | null {
  const first = (path.split('/')[0] ?? '').toLowerCase();
  if (first.startsWith(EXECUTOR_PREFIX)) return first;
  return RESERVED_TOP_LEVEL_NAMES.includes(first) ? first : null;
}

/**
 * Refuses a listing any of whose files could write outside the output directory, over the step's
 * or the executor's bookkeeping, or onto another listed file: unsafe paths ({@link unsafePathReason}),
 * reserved names ({@link bookkeepingCollision}), duplicates, and a file listed where another is a
 * directory (`a` and `a/b`). Run on the whole listing before anything is written.
 *
 * @throws {PipelineError} PIPELINE_UNSAFE_PATH naming the first offending path (`details.path`, `details.reason`).
 */
export function assertSafeListing(files: readonly SourceFile[], source: string): void {
  const seen = new Set<string>();
  for (const f of files) {
    const reason = unsafePathReason(f.path);
    if (reason !== null) throw unsafe(f.path, reason, source);
    const reserved = bookkeepingCollision(f.path);
    if (reserved !== null) {
      throw unsafe(f.path, `"${reserved}" is reserved for the step's and the executor's bookkeeping`, source);
    }
    if (seen.has(f.path)) throw unsafe(f.path, 'the path is listed twice', source);
    seen.add(f.path);
  }
  for (const f of files) {
    const segments = f.path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join('/');
      if (seen.has(parent)) throw unsafe(f.path, `"${parent}" is listed as a file`, source);
    }
  }
}
