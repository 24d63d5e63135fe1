import { pipeline } from 'node:stream/promises';
import { RiggingError } from '../errors.js';
import type { Filesystem } from './filesystem.js';

/** Streams one file from `src` on `srcFs` to `dst` on `dstFs`; the destination appears only when complete. */
export async function streamCopy(srcFs: Filesystem, src: string, dstFs: Filesystem, dst: string): Promise<void> {
  const input = await srcFs.createReadStream(src);
  let output;
  try {
    output = await dstFs.createWriteStream(dst);
  } catch (err) {
    input.destroy();
    throw err;
  }
  await pipeline(input, output);
}

let registryLookup: ((url: string) => Filesystem) | undefined;

/**
 * Installs how a backend finds the filesystem of a destination on another backend. The registry calls it with
 * `filesystemFor` when it loads: it imports the backends, so they reach it through this hook, not an import.
 */
export function setCrossBackendLookup(lookup: (url: string) => Filesystem): void {
  registryLookup = lookup;
}

/**
 * The filesystem of `url` on another backend, through the registry.
 * @throws {RiggingError} RIGGING_UNSUPPORTED when the registry has not loaded (a backend module used on its own)
 */
export function lookupFilesystem(url: string): Filesystem {
  if (registryLookup === undefined) {
    throw new RiggingError('RIGGING_UNSUPPORTED', `no filesystem registry to reach "${url}" from another backend`, {
      details: { path: url, operation: 'lookupFilesystem' },
    });
  }
  return registryLookup(url);
}
