import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Copies the contents of directory `src` into `dest` (created if missing), preserving modes and symlinks. */
export async function copyTree(src: string, dest: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  await execFileAsync('cp', ['-a', `${src}/.`, `${dest}/`]);
}

/**
 * Recreates `<srcRoot>/<path>` at `<destRoot>/<path>` as hard links (`cp -al`). Relative symlinks
 * inside (npm's workspace links) are copied as links, so they resolve inside `destRoot`; hard links
 * make a large `node_modules` appear in milliseconds without using disk.
 */
export async function linkTreePath(srcRoot: string, destRoot: string, path: string): Promise<void> {
  const dest = join(destRoot, path);
  await mkdir(dirname(dest), { recursive: true });
  await execFileAsync('cp', ['-al', join(srcRoot, path), dest]);
}
