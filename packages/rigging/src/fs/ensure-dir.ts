import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * `mkdir -p` that reports the real reason it failed. Node's recursive `mkdir` answers ENOENT when a
 * component cannot be created on a read-only filesystem (or under a file), so a write to a new
 * directory of a read-only prefix would read as "not found". On ENOENT the components are created
 * one by one, which raises the errno that actually applies (EROFS, EACCES, ENOTDIR).
 */
export async function ensureDir(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const missing: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    missing.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of missing) {
    try {
      await mkdir(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
