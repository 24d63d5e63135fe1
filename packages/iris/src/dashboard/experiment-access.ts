import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RiggingError, StoragePath, filesystemFor } from '@marin/rigging';
import { IrisError } from '../errors.js';

/** Largest experiment, status or info file the dashboard reads. */
export const EXPERIMENT_FILE_MAX_BYTES = 16 * 1024 * 1024;
/** How long one such read may take. */
export const EXPERIMENT_READ_TIMEOUT_MS = 5000;

function localPathOf(url: string): string | null {
  if (url.startsWith('file://')) return fileURLToPath(url);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? null : resolve(url);
}

/**
 * One spelling per prefix, so `/tmp//marin/./`, `/tmp/marin` and `file:///tmp/marin` compare
 * equal: local paths are resolved, URLs normalised by rigging.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a URL rigging cannot parse
 */
export function canonicalPrefix(prefix: string): string {
  const local = localPathOf(prefix);
  if (local !== null) return local;
  try {
    return StoragePath.normalize(prefix);
  } catch (e) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `prefix "${prefix.slice(0, 200)}" is not a path or URL`, { cause: e });
  }
}

/** True when `url` is `prefix` or below it (both canonical). */
export function isUnder(url: string, canonical: string): boolean {
  let c: string;
  try {
    c = canonicalPrefix(url);
  } catch {
    return false;
  }
  return c === canonical || c.startsWith(canonical.endsWith('/') ? canonical : `${canonical}/`);
}

function invalid(what: string): IrisError {
  return new IrisError('IRIS_INVALID_ARGUMENT', what);
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new IrisError('IRIS_DEADLINE_EXCEEDED', `reading ${what} took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function readLocal(path: string, name: string, maxBytes: number): Promise<string | null> {
  let handle;
  try {
    // Non-blocking open: a FIFO (or device) opens at once instead of parking an I/O thread until a
    // writer appears, which would wedge every other file operation of the controller.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw invalid(`${name} cannot be read (${code ?? 'error'})`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw invalid(`${name} is not a regular file`);
    if (info.size > maxBytes) throw invalid(`${name} is larger than ${maxBytes} bytes`);
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > maxBytes) throw invalid(`${name} is larger than ${maxBytes} bytes`);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function readRemote(url: string, name: string, maxBytes: number): Promise<string | null> {
  const fs = filesystemFor(url);
  try {
    const info = await fs.stat(url);
    if (info.type !== 'file') throw invalid(`${name} is not a regular file`);
    if (info.size > maxBytes) throw invalid(`${name} is larger than ${maxBytes} bytes`);
    return await fs.readText(url);
  } catch (e) {
    if (RiggingError.is(e) && e.code === 'RIGGING_NOT_FOUND') return null;
    throw e;
  }
}

/**
 * Reads a small regular file for the experiments view: null when it does not exist; never opens
 * anything but a regular file, never reads more than `maxBytes`, never waits longer than `timeoutMs`.
 * `name` is how errors refer to it (never the full path, so an answer does not map the disk).
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a file that is not regular or too large;
 *   IRIS_DEADLINE_EXCEEDED past the timeout
 */
export function readSmallFile(url: string, name: string, options: { maxBytes?: number; timeoutMs?: number } = {}): Promise<string | null> {
  const maxBytes = options.maxBytes ?? EXPERIMENT_FILE_MAX_BYTES;
  const local = localPathOf(url);
  const work = local !== null ? readLocal(local, name, maxBytes) : readRemote(url, name, maxBytes);
  return withTimeout(work, options.timeoutMs ?? EXPERIMENT_READ_TIMEOUT_MS, name);
}

/**
 * The configured prefix `asked` names (compared canonically), or a refusal that says which prefixes
 * are served and touches no file, so nothing about other paths can be learned from the answer.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT when `asked` is not one of `allowed`
 */
export function servedPrefix(asked: string, allowed: readonly string[]): string {
  const canonical = canonicalPrefix(asked);
  const hit = allowed.find((p) => canonicalPrefix(p) === canonical);
  if (hit === undefined) {
    throw new IrisError(
      'IRIS_INVALID_ARGUMENT',
      `prefix "${asked.slice(0, 200)}" is not one this controller serves experiments from (${allowed.map((p) => `"${p}"`).join(', ')}); start it with --experiment-prefix or IRIS_EXPERIMENT_PREFIXES to add one`,
    );
  }
  return hit;
}
