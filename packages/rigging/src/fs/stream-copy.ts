import { pipeline } from 'node:stream/promises';
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

/**
 * `filesystemFor(url)`, loaded lazily: the registry imports every backend, so backends reach it
 * through a dynamic import instead of a static cycle.
 */
export async function lookupFilesystem(url: string): Promise<Filesystem> {
  const { filesystemFor } = await import('./registry.js');
  return filesystemFor(url);
}
