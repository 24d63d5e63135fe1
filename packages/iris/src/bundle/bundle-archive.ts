import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { create, Parser } from 'tar';
import type { ReadEntry } from 'tar';
import { IrisError } from '../errors.js';
import { comparePaths } from './bundle-files.js';
import { resolveBundleLimits } from './bundle-limits.js';
import type { BundleLimits } from './bundle-limits.js';
import { bundleIdOf, bundleModeOf } from './bundle-manifest.js';
import type { BundleFile } from './bundle-manifest.js';

/** Archive bytes: in memory, or arriving as a stream (an upload). */
export type BundleArchiveSource = Buffer | AsyncIterable<Buffer>;

/** Options of {@link readBundleArchive}, {@link verifyBundleArchive} and {@link extractBundleArchive}. */
export interface BundleArchiveOptions {
  /** Caps checked while the archive streams. @default resolveBundleLimits() (env, then 1 GiB and 100,000 entries) */
  limits?: Partial<BundleLimits>;
}

/** Why an entry makes an archive unsafe (`details.reason` of `IRIS_BUNDLE_UNSAFE`). */
export type BundleUnsafeReason =
  | 'symlink'
  | 'hardlink'
  | 'fifo'
  | 'device'
  | 'directory'
  | 'special-entry'
  | 'absolute-path'
  | 'parent-segment'
  | 'bad-path'
  | 'duplicate-path'
  | 'file-directory-clash';

const ENTRY_REASONS: Readonly<Record<string, BundleUnsafeReason>> = {
  SymbolicLink: 'symlink',
  Link: 'hardlink',
  FIFO: 'fifo',
  CharacterDevice: 'device',
  BlockDevice: 'device',
  Directory: 'directory',
  GNUDumpDir: 'directory',
};

/**
 * Packs `paths` (already sorted) under `root` into a gzip'd tar with portable headers and mtime 0,
 * so the same files give the same bytes on every machine.
 */
export async function packBundleArchive(root: string, paths: readonly string[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stream = create({ gzip: true, portable: true, mtime: new Date(0), cwd: root, noDirRecurse: true }, [...paths]);
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** What a pass over an archive saw. */
interface ArchiveScan {
  files: BundleFile[];
  inflatedBytes: number;
  entries: number;
}

function unsafe(reason: BundleUnsafeReason, path: string, what: string): IrisError {
  return new IrisError('IRIS_BUNDLE_UNSAFE', `bundle archive holds ${what} "${path}"; bundles hold regular files only, at relative paths without "..", and no path is both a file and a directory`, {
    details: { reason, path },
  });
}

/** Why `path` is not a safe relative bundle path, or null when it is. */
function pathProblem(path: string): BundleUnsafeReason | null {
  if (path.startsWith('/')) return 'absolute-path';
  const parts = path.split('/');
  if (parts.some((p) => p === '..')) return 'parent-segment';
  if (path.includes('\0') || parts.some((p) => p === '' || p === '.')) return 'bad-path';
  return null;
}

const UNSAFE_WHAT: Readonly<Record<BundleUnsafeReason, string>> = {
  symlink: 'a symlink',
  hardlink: 'a hard link',
  fifo: 'a FIFO',
  device: 'a device',
  directory: 'a directory entry',
  'special-entry': 'a special entry',
  'absolute-path': 'an absolute path',
  'parent-segment': 'a path with ".."',
  'bad-path': 'a malformed path',
  'duplicate-path': 'a second entry for',
  'file-directory-clash': 'a path that is both a file and a directory:',
};

/**
 * One streaming pass over a gzip'd tar: inflated bytes and entries are counted as they pass and the
 * pass stops at the first cap crossed, so neither memory nor disk grows past the limits whatever the
 * compression ratio. Each entry is checked from its header (type, path, clashes) before its content is
 * read; content is hashed chunk by chunk and, with `dest`, written there with the mode the bundle id
 * records (0644 or 0755, never setuid/setgid).
 */
async function scanArchive(source: BundleArchiveSource, options: BundleArchiveOptions, dest?: string): Promise<ArchiveScan> {
  const limits = resolveBundleLimits(options.limits);
  const files: BundleFile[] = [];
  const filePaths = new Set<string>();
  const dirPaths = new Set<string>();
  const work: Promise<void>[] = [];
  const reading = new Set<ReadEntry>();
  let inflatedBytes = 0;
  let entries = 0;
  let refused: IrisError | undefined;
  let warning: unknown;

  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      inflatedBytes += chunk.length;
      if (inflatedBytes > limits.maxInflatedBytes) {
        callback(
          new IrisError('IRIS_BUNDLE_TOO_LARGE', `bundle archive inflates past ${limits.maxInflatedBytes} bytes; raise IRIS_BUNDLE_MAX_INFLATED_BYTES on the controller and workers if this is intended`, {
            details: { limit: 'inflated-bytes', maxInflatedBytes: limits.maxInflatedBytes, inflatedBytes },
          }),
        );
      } else callback(null, chunk);
    },
  });
  const refuse = (e: IrisError): void => {
    refused ??= e;
    counter.destroy(refused);
    // Entries cut off mid-content never end on their own; their readers must settle.
    for (const entry of reading) entry.destroy(refused);
  };

  const parser = new Parser({
    // Bytes that are not a tar archive parse as no entries plus warnings; they are not a bundle.
    strict: true,
    onwarn: (_code: string, message: string | Error) => {
      warning ??= message;
    },
    onReadEntry: (entry: ReadEntry) => {
      entries += 1;
      if (refused !== undefined) return void entry.resume();
      if (entries > limits.maxEntries) {
        entry.resume();
        return refuse(
          new IrisError('IRIS_BUNDLE_TOO_LARGE', `bundle archive holds more than ${limits.maxEntries} entries; raise IRIS_BUNDLE_MAX_ENTRIES on the controller and workers if this is intended`, {
            details: { limit: 'entries', maxEntries: limits.maxEntries, entries },
          }),
        );
      }
      const path = entry.path.replace(/^\.\//, '');
      const reason = entry.type === 'File' || entry.type === 'OldFile' || entry.type === 'ContiguousFile' ? pathProblem(path) : (ENTRY_REASONS[entry.type] ?? 'special-entry');
      const clash = reason === null ? clashOf(path, filePaths, dirPaths) : null;
      if (reason !== null || clash !== null) {
        entry.resume();
        const why = reason ?? clash!;
        return refuse(unsafe(why, path, UNSAFE_WHAT[why]));
      }
      filePaths.add(path);
      for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) dirPaths.add(path.slice(0, i));
      const mode = bundleModeOf(entry.mode ?? 0o644);
      reading.add(entry);
      work.push(
        readEntry(entry, path, mode, dest)
          .then(
            (file) => void files.push(file),
            (e: unknown) => refuse(IrisError.from(e)),
          )
          .finally(() => reading.delete(entry)),
      );
    },
  });

  try {
    await pipeline(Buffer.isBuffer(source) ? Readable.from([source]) : Readable.from(source), createGunzip(), counter, parser);
    await Promise.all(work);
    if (refused !== undefined) throw refused;
    if (warning !== undefined) throw warning;
  } catch (e) {
    for (const entry of reading) entry.destroy(IrisError.from(e));
    await Promise.allSettled(work);
    if (refused !== undefined) throw refused;
    if (IrisError.is(e)) throw e;
    throw new IrisError('IRIS_INVALID_ARGUMENT', 'bundle archive is not a readable gzip tar', { cause: e });
  }
  files.sort((a, b) => comparePaths(a.path, b.path));
  return { files, inflatedBytes, entries };
}

/** `path` against the files and directories seen so far: a repeat, or a file where a directory is (or the reverse). */
function clashOf(path: string, filePaths: ReadonlySet<string>, dirPaths: ReadonlySet<string>): BundleUnsafeReason | null {
  if (filePaths.has(path)) return 'duplicate-path';
  if (dirPaths.has(path)) return 'file-directory-clash';
  for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) if (filePaths.has(path.slice(0, i))) return 'file-directory-clash';
  return null;
}

async function readEntry(entry: ReadEntry, path: string, mode: 0o644 | 0o755, dest: string | undefined): Promise<BundleFile> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      sizeBytes += chunk.length;
      callback(null, chunk);
    },
  });
  if (dest === undefined) {
    await pipeline(entry as unknown as NodeJS.ReadableStream, hashing, async (chunks: AsyncIterable<Buffer>) => {
      for await (const _ of chunks);
    });
  } else {
    const full = join(dest, path);
    await mkdir(dirname(full), { recursive: true, mode: 0o755 });
    // A fresh staging tree with checked paths: "wx" never follows or replaces anything already there.
    await pipeline(entry as unknown as NodeJS.ReadableStream, hashing, createWriteStream(full, { flags: 'wx', mode: 0o600 }));
    await chmod(full, mode);
  }
  return { path, mode, sha256: hash.digest('hex'), sizeBytes };
}

/**
 * Reads the file list of a bundle archive (content hashes included) without writing anything, so a
 * receiver can check an archive against the id it was promised. Memory stays flat: contents are
 * hashed as they stream, and the limits stop the read at the first cap crossed.
 * @throws {IrisError} IRIS_BUNDLE_TOO_LARGE past a limit (`details.limit`); IRIS_BUNDLE_UNSAFE for an
 *   entry that is not a regular file, an unsafe path or a file/directory clash (`details.reason`,
 *   `details.path`); IRIS_INVALID_ARGUMENT if the bytes are not a readable gzip'd tar
 */
export async function readBundleArchive(archive: BundleArchiveSource, options: BundleArchiveOptions = {}): Promise<BundleFile[]> {
  return (await scanArchive(archive, options)).files;
}

function checkId(files: readonly BundleFile[], expectedId: string): void {
  const actual = bundleIdOf(files);
  if (actual !== expectedId) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `bundle archive content is "${actual}", not the expected "${expectedId}"`, {
      details: { expectedId, actualId: actual },
    });
  }
}

/**
 * Checks that `archive` holds exactly the bundle `expectedId` and returns its files.
 * @throws {IrisError} as {@link readBundleArchive}; IRIS_INVALID_ARGUMENT if the content does not hash to `expectedId`
 */
export async function verifyBundleArchive(archive: BundleArchiveSource, expectedId: string, options: BundleArchiveOptions = {}): Promise<BundleFile[]> {
  const files = await readBundleArchive(archive, options);
  checkId(files, expectedId);
  return files;
}

/**
 * Verifies and extracts a bundle archive into `dest` (created; it must not hold anything yet) in one
 * streaming pass: regular files only, each with the mode its id records. On any failure `dest` is
 * removed, so a present tree is always a complete, verified one.
 * @throws {IrisError} as {@link verifyBundleArchive}
 */
export async function extractBundleArchive(archive: BundleArchiveSource, dest: string, expectedId: string, options: BundleArchiveOptions = {}): Promise<BundleFile[]> {
  await mkdir(dest, { recursive: true, mode: 0o755 });
  try {
    const { files } = await scanArchive(archive, options, dest);
    checkId(files, expectedId);
    return files;
  } catch (e) {
    await rm(dest, { recursive: true, force: true });
    throw e;
  }
}
