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
