import { RiggingError } from '../errors.js';
import { mapLimit } from '../concurrency/map-limit.js';
import { atomicRename } from './atomic-rename.js';
import type { FileInfo, Filesystem, LsOptions } from './filesystem.js';
import { filesystemFor } from './registry.js';
import { StoragePath, prefixJoin } from './storage-path.js';
import { tempTarget } from './temp-path.js';

/** Options of {@link copyTree}. */
export interface CopyTreeOptions {
  /** `resume` skips files whose destination exists with the same size; `overwrite` copies all. @default 'resume' */
  mode?: 'resume' | 'overwrite';
  /** Files copied at once. @default 8 */
  concurrency?: number;
}

/** What {@link copyTree} did. */
export interface CopyTreeResult {
  /** Files copied. */
  copiedFiles: number;
  /** Files skipped in `resume` mode. */
  skippedFiles: number;
  /** Bytes copied. */
  copiedBytes: number;
  /** Staging objects (`<file>.tmp.<32 hex>`) of an interrupted earlier copy that were removed. */
  removedTemporary: number;
}

function sameOrInside(inner: StoragePath, outer: StoragePath): boolean {
  const norm = (s: string | null) => (s === 'file' ? null : s);
  return (
    norm(inner.scheme) === norm(outer.scheme) &&
    inner.netloc === outer.netloc &&
    (inner.scheme !== null || inner.rooted === outer.rooted) &&
    outer.segments.length <= inner.segments.length &&
    outer.segments.every((s, i) => inner.segments[i] === s)
  );
}

/**
 * Every file below `url` with its path relative to `url`, found by walking `ls` (staging names of
 * unfinished writes only with `includeTemporary`).
 */
export async function listFilesRecursive(fs: Filesystem, url: string, opts: LsOptions = {}): Promise<Array<{ rel: string; info: FileInfo }>> {
  const base = StoragePath.parse(url);
  const out: Array<{ rel: string; info: FileInfo }> = [];
  let frontier = [url];
  while (frontier.length > 0) {
    const listings = await mapLimit(frontier, 16, (dir) => fs.ls(dir, opts));
    frontier = [];
    for (const entries of listings) {
      for (const e of entries) {
        if (e.type === 'directory') frontier.push(e.url);
        else out.push({ rel: StoragePath.parse(e.url).relativeTo(base), info: e });
      }
    }
  }
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/**
 * Copies every file under `source` to the same relative path under `destination`, across backends if
 * needed. Each file appears atomically (local destinations through `atomicRename`, object stores by
 * a single write), so an interrupted run leaves no partial file and a `resume` rerun continues where
 * it stopped, first removing the staging names (`<file>.tmp.<32 hex>`) an interrupted run left for
 * the files it copies. Files only at the destination are never deleted.
 *
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT if `destination` is `source` or inside it.
 * @throws {RiggingError} RIGGING_NOT_FOUND if `source` does not exist.
 */
export async function copyTree(source: string, destination: string, opts: CopyTreeOptions = {}): Promise<CopyTreeResult> {
  if (sameOrInside(StoragePath.parse(destination), StoragePath.parse(source))) {
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `cannot copy "${source}" into itself ("${destination}")`, {
      details: { path: destination, operation: 'copyTree', source },
    });
  }
  const mode = opts.mode ?? 'resume';
  const srcFs = filesystemFor(source);
  const dstFs = filesystemFor(destination);
  const files = await listFilesRecursive(srcFs, source);
  const result: CopyTreeResult = { copiedFiles: 0, skippedFiles: 0, copiedBytes: 0, removedTemporary: 0 };
  // An interrupted copy (killed between staging and rename) leaves `<file>.tmp.<32 hex>` behind;
  // remove those of the files we copy. Staging names of other files may belong to other writers.
  const wanted = new Set(files.map((f) => f.rel));
  const leftovers = (await listFilesRecursive(dstFs, destination, { includeTemporary: true }).catch(ignoreMissing)).filter((f) => {
    const target = tempTarget(f.rel);
    return target !== null && wanted.has(target);
  });
  await mapLimit(leftovers, opts.concurrency ?? 8, async ({ rel }) => {
    await dstFs.rm(prefixJoin(destination, rel), { recursive: true, missingOk: true });
    result.removedTemporary++;
  });
  // Object-store writes are already all-or-nothing (an object appears only once complete), so
  // staging there would only add a copy and a delete per file, and leftovers when interrupted.
  const direct = StoragePath.parse(destination).isRemote;
  await mapLimit(files, opts.concurrency ?? 8, async ({ rel, info }) => {
    const from = prefixJoin(source, rel);
    const to = prefixJoin(destination, rel);
    if (mode === 'resume') {
      const existing = await dstFs.stat(to).catch((err: unknown) => {
        if (RiggingError.hasCode(err, 'RIGGING_NOT_FOUND')) return null;
        throw err;
      });
      if (existing !== null && existing.type === 'file' && existing.size === info.size) {
        result.skippedFiles++;
        return;
      }
    }
    if (direct) await srcFs.copy(from, to);
    else await atomicRename(to, (tmp) => srcFs.copy(from, tmp));
    result.copiedFiles++;
    result.copiedBytes += info.size;
  });
  return result;
}

function ignoreMissing(err: unknown): Array<{ rel: string; info: FileInfo }> {
  if (RiggingError.hasCode(err, 'RIGGING_NOT_FOUND')) return [];
  throw err;
}
