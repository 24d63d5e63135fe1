import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesystemFor, mapLimit, RiggingError, schemeOf } from '@marin/rigging';
import { fileUnder, readStatus, STATUS_FILE } from '../status/status-store.js';
import { parseStatusText } from '../status/status.js';
import type { StepStatus } from '../status/status.js';

function localPath(outputPath: string): string | null {
  const scheme = schemeOf(outputPath);
  if (scheme === '' || scheme === null) return outputPath;
  if (scheme === 'file') return fileURLToPath(outputPath);
  return null;
}

/**
 * The `.executor_status` of many outputs, index-aligned. Local outputs are read synchronously (one `stat` that
 * does not throw for a missing file, then the read): planning thousands of artifacts is dominated by status reads,
 * and a synchronous stat costs a small fraction of an asynchronous round trip through the thread pool plus an
 * exception per missing file. A missing status file's missing ancestor directories are remembered for the rest of
 * the scan, so a graph that was never built under a prefix costs one `stat` per missing directory, not one per
 * artifact. Other filesystems are read with `readStatus`, `concurrency` at once.
 */
export async function readStatuses(outputPaths: readonly string[], concurrency = 32): Promise<(StepStatus | null)[]> {
  const out: (StepStatus | null)[] = new Array<StepStatus | null>(outputPaths.length).fill(null);
  const remote: number[] = [];
  const missingDirs = new Set<string>();
  outputPaths.forEach((p, i) => {
    const local = localPath(p);
    if (local === null) {
      remote.push(i);
      return;
    }
    if (underMissingDir(local, missingDirs)) return;
    const file = fileUnder(local, STATUS_FILE);
    if (statSync(file, { throwIfNoEntry: false })?.isFile() !== true) {
      rememberMissingDirs(local, missingDirs);
      return;
    }
    try {
      out[i] = parseStatusText(readFileSync(file, 'utf8'));
    } catch (e) {
      // Removed between the stat and the read: no status, as readStatus reports a missing file.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  });
  const read = await mapLimit(remote, concurrency, (i) => readStatus(outputPaths[i] as string));
  remote.forEach((i, k) => (out[i] = read[k] ?? null));
  return out;
}

/** True when `dir` or one of its ancestors is known to be missing. */
function underMissingDir(dir: string, missing: ReadonlySet<string>): boolean {
  if (missing.size === 0) return false;
  for (let d = dir; ; ) {
    if (missing.has(d)) return true;
    const parent = dirname(d);
    if (parent === d) return false;
    d = parent;
  }
}

/** Records the missing directories from `dir` up to its first existing ancestor. */
function rememberMissingDirs(dir: string, missing: Set<string>): void {
  let top: string | null = null;
  for (let d = dir; !missing.has(d) && statSync(d, { throwIfNoEntry: false }) === undefined; ) {
    top = d;
    const parent = dirname(d);
    if (parent === d) break;
    d = parent;
  }
  if (top !== null) missing.add(top);
}

/**
 * A file's text, or `null` when it does not exist. Local files are read synchronously (see {@link readStatuses});
 * other filesystems through rigging.
 */
export async function readTextIfExists(url: string): Promise<string | null> {
  const local = localPath(url);
  if (local !== null) {
    if (statSync(local, { throwIfNoEntry: false })?.isFile() !== true) return null;
    try {
      return readFileSync(local, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }
  try {
    return await filesystemFor(url).readText(url);
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return null;
    throw e;
  }
}

/** One output's `.executor_status` (`null` when missing), with the local fast path of {@link readStatuses}. */
export async function readStatusFast(outputPath: string): Promise<StepStatus | null> {
  const text = await readTextIfExists(fileUnder(outputPath, STATUS_FILE));
  return text === null ? null : parseStatusText(text);
}
