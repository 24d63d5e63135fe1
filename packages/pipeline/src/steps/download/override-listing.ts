import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { RiggingError, compareCodePoints, filesystemFor, isTempPath, listFilesRecursive, localPathOf, prefixJoin, schemeOf } from '@marin/rigging';
import { PipelineError } from '../../errors.js';
import type { SourceFile } from './source-file.js';

function notFound(url: string, cause?: unknown): PipelineError {
  return new PipelineError('PIPELINE_INPUT_NOT_FOUND', `source_url_override "${url}" does not exist or is not a directory`, {
    cause,
    details: { path: url },
  });
}

function unsafe(url: string, rel: string, reason: string): PipelineError {
  return new PipelineError('PIPELINE_UNSAFE_PATH', `refusing "${rel}" in source_url_override "${url}": ${reason}; nothing was written`, {
    details: { path: rel, reason, source: url },
  });
}

const isInside = (root: string, target: string): boolean => {
  const rel = relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
};

/**
 * Every file below `url` (a local directory or any rigging URL) with its path relative to `url`.
 *
 * A local directory is walked without trusting its symlinks: one whose target (resolved fully)
 * lies inside the directory is followed, as if it were a copy; one that points outside it, dangles,
 * or leads back into a directory being walked (a cycle) refuses the listing, as does anything that
 * is neither a regular file nor a directory (a FIFO would block the copy forever). Object stores
 * have no symlinks.
 *
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND if `url` does not exist.
 * @throws {PipelineError} PIPELINE_UNSAFE_PATH for a symlink pointing out of `url`, a symlink cycle, or a special file.
 */
export async function listOverrideFiles(url: string): Promise<SourceFile[]> {
  const scheme = schemeOf(url);
  if (scheme === null || scheme === 'file') return listLocalOverride(url);
  try {
    const files = await listFilesRecursive(filesystemFor(url), url);
    return files.map(({ rel, info }) => ({ path: rel, size: info.size, url: info.url }));
  } catch (err) {
    if (!RiggingError.hasCode(err, 'RIGGING_NOT_FOUND')) throw err;
    throw notFound(url, err);
  }
}

async function listLocalOverride(url: string): Promise<SourceFile[]> {
  let root: string;
  try {
    root = await realpath(localPathOf(url));
    if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
  } catch (err) {
    throw notFound(url, err);
  }
  const out: SourceFile[] = [];
  const walk = async (dir: string, rel: string, ancestors: ReadonlySet<string>): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).filter((d) => !isTempPath(d.name));
    entries.sort((a, b) => compareCodePoints(a.name, b.name));
    for (const d of entries) {
      const childRel = rel === '' ? d.name : `${rel}/${d.name}`;
      let path = join(dir, d.name);
      if ((await lstat(path)).isSymbolicLink()) {
        const target = await realpath(path).catch(() => null);
        if (target === null) throw unsafe(url, childRel, 'the symlink dangles or loops');
        if (!isInside(root, target)) throw unsafe(url, childRel, 'the symlink points outside the directory');
        path = target;
      }
      const st = await stat(path);
      if (st.isDirectory()) {
        if (ancestors.has(path)) throw unsafe(url, childRel, 'the symlink leads back into a directory being walked');
        await walk(path, childRel, new Set([...ancestors, path]));
      } else if (st.isFile()) {
        out.push({ path: childRel, size: st.size, url: prefixJoin(url, childRel) });
      } else {
        throw unsafe(url, childRel, 'it is neither a regular file nor a directory');
      }
    }
  };
  await walk(root, '', new Set([root]));
  return out.sort((a, b) => compareCodePoints(a.path, b.path));
}
