import { mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create, extract, Parser } from 'tar';
import type { ReadEntry } from 'tar';
import { IrisError } from '../errors.js';
import { bundleFileOf, bundleIdOf } from './bundle-manifest.js';
import type { BundleFile } from './bundle-manifest.js';

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

/**
 * Reads the file list of a bundle archive from memory (content hashes included) without writing
 * anything, so a receiver can check an archive against the id it was promised.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT if the bytes are not a readable archive, hold an unsafe path or
 *   an entry that is not a regular file
 */
export async function readBundleArchive(archive: Buffer): Promise<BundleFile[]> {
  const files: BundleFile[] = [];
  const pending: Promise<void>[] = [];
  let refused: IrisError | undefined;
  let warning: unknown;
  const parser = new Parser({
    // Bytes that are not a tar archive parse as no entries plus warnings; they are not a bundle.
    strict: true,
    onwarn: (_code: string, message: string | Error) => {
      warning ??= message;
    },
    onReadEntry: (entry: ReadEntry) => {
      if (entry.type !== 'File' && entry.type !== 'OldFile') {
        // Bundles hold regular files only. Any other entry (a symlink, a hard link, a directory, a
        // device) would be extracted without being covered by the id, so the archive is refused.
        refused ??= new IrisError('IRIS_INVALID_ARGUMENT', `bundle archive holds a ${entry.type} entry "${entry.path}" that its id does not cover`);
        entry.resume();
        return;
      }
      const path = entry.path.replace(/^\.\//, '');
      const mode = entry.mode ?? 0o644;
      pending.push(
        new Promise<void>((resolve, reject) => {
          const parts: Buffer[] = [];
          entry.on('data', (c: Buffer) => parts.push(c));
          entry.on('end', () => {
            if (!isSafePath(path)) reject(new IrisError('IRIS_INVALID_ARGUMENT', `bundle archive holds an unsafe path "${path}"`));
            else files.push(bundleFileOf(path, Buffer.concat(parts), mode));
            resolve();
          });
          entry.on('error', reject);
        }),
      );
    },
  });
  try {
    await pipeline(Readable.from([archive]), parser);
    await Promise.all(pending);
    if (refused !== undefined) throw refused;
    if (warning !== undefined) throw warning;
  } catch (e) {
    if (IrisError.is(e)) throw e;
    throw new IrisError('IRIS_INVALID_ARGUMENT', 'bundle archive is not a readable gzip tar', { cause: e });
  }
  return files;
}

/**
 * Checks that `archive` holds exactly the bundle `expectedId` and returns its files.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT if the content does not hash to `expectedId`
 */
export async function verifyBundleArchive(archive: Buffer, expectedId: string): Promise<BundleFile[]> {
  const files = await readBundleArchive(archive);
  const actual = bundleIdOf(files);
  if (actual !== expectedId) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `bundle archive content is "${actual}", not the expected "${expectedId}"`, {
      details: { expectedId, actualId: actual },
    });
  }
  return files;
}

/** Extracts a (verified) bundle archive into `dest`, creating it. */
export async function extractBundleArchive(archive: Buffer, dest: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  await pipeline(Readable.from([archive]), extract({ cwd: dest, strict: true, preserveOwner: false }));
}

function isSafePath(path: string): boolean {
  return path !== '' && !path.startsWith('/') && !path.split('/').some((p) => p === '..');
}
