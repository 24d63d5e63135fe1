import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesystemFor, mapLimit, RiggingError, schemeOf } from '@marin/rigging';
import { fileUnder, readStatus, STATUS_FILE } from '../status/status-store.js';
import { parseStatusText } from '../status/status.js';
import type { StepStatus } from '../status/status.js';

function localPath(outputPath: string): string | null {
  if (outputPath.charCodeAt(0) === 0x2f) return outputPath; // an absolute local path has no scheme
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
  // The missing directory the previous path was under (`dir/`): the outputs of one graph share their ancestors.
  let lastMissing: string | null = null;
  let expectFile = false;
  outputPaths.forEach((p, i) => {
    const local = localPath(p);
    if (local === null) {
      remote.push(i);
      return;
    }
    if (lastMissing !== null && local.startsWith(lastMissing)) return;
    const missing = missingAncestor(local, missingDirs);
    if (missing !== null) {
      lastMissing = missing.endsWith('/') ? missing : `${missing}/`;
      return;
    }
    const text = readLocalText(fileUnder(local, STATUS_FILE), expectFile);
    // A built graph has one status after another: read those directly, and stat first again after a miss.
    expectFile = text !== null;
    if (text === null) rememberMissingDirs(local, missingDirs);
    else out[i] = parseStatusText(text);
  });
  const read = await mapLimit(remote, concurrency, (i) => readStatus(outputPaths[i] as string));
  remote.forEach((i, k) => (out[i] = read[k] ?? null));
  return out;
}

/** `dir` or its ancestor that is known to be missing, else `null`. */
function missingAncestor(dir: string, missing: ReadonlySet<string>): string | null {
  if (missing.size === 0) return null;
  for (let d = dir; ; ) {
    if (missing.has(d)) return d;
    const parent = dirname(d);
    if (parent === d) return null;
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

/** Read errors that mean "no such file" (the path is missing, under a non-directory, or a directory). */
const NO_FILE = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

/**
 * A local file's text, or `null` when there is no such file. `expectFile`: read directly (one call; a missing file
 * then costs an exception), else `stat` first (a missing file costs no exception, a present one a second call).
 */
function readLocalText(file: string, expectFile: boolean): string | null {
  if (!expectFile && statSync(file, { throwIfNoEntry: false })?.isFile() !== true) return null;
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    // Removed between the stat and the read, or not there: no file, as readStatus reports a missing one.
    if (NO_FILE.has((e as NodeJS.ErrnoException).code ?? '')) return null;
    throw e;
  }
}

/**
 * A file's text, or `null` when it does not exist. Local files are read synchronously (see {@link readStatuses});
 * other filesystems through rigging. `expectFile`: the file most likely exists (a built artifact's status or
 * record), so a local one is read without a `stat` first.
 */
export async function readTextIfExists(url: string, expectFile = false): Promise<string | null> {
  const local = localPath(url);
  if (local !== null) return readLocalText(local, expectFile);
  try {
    return await filesystemFor(url).readText(url);
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return null;
    throw e;
  }
}

/**
 * One output's `.executor_status` (`null` when missing), with the local fast path of {@link readStatuses};
 * `expectFile` as {@link readTextIfExists}'s.
 */
export async function readStatusFast(outputPath: string, expectFile = false): Promise<StepStatus | null> {
  const text = await readTextIfExists(fileUnder(outputPath, STATUS_FILE), expectFile);
  return text === null ? null : parseStatusText(text);
}
