import { RiggingError } from '../errors.js';
import { createLocalFilesystem } from './local-filesystem.js';
import { filesystemFor } from './registry.js';

/**
 * Reads all of `srcUrl` and writes it to local `destPath` through a temp sibling and a rename.
 * @returns `true` when written, `false` when the source does not exist.
 */
export async function fetchFileAtomic(srcUrl: string, destPath: string): Promise<boolean> {
  let data: Buffer;
  try {
    data = await filesystemFor(srcUrl).readBytes(srcUrl);
  } catch (err) {
    if (RiggingError.hasCode(err, 'RIGGING_NOT_FOUND')) return false;
    throw err;
  }
  await createLocalFilesystem().writeBytes(destPath, data); // temp sibling + rename
  return true;
}
