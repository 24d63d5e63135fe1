import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureDir } from './ensure-dir.js';
import { fsError } from '../internal/fs-error.js';

/** A guard directory older than this is taken to be abandoned by a crashed process. */
export const GUARD_STALE_MS = 10_000;
const GUARD_WAIT_MS = 120_000;

/**
 * Runs `fn` inside the exclusive section for local path `path`: an atomic
 * `mkdir(<path>.guard)`, retried every 10–50 ms; a guard older than 10 s is removed. The guard is
 * removed when `fn` settles. Mutual exclusion holds between every process that follows this protocol.
 *
 * @throws {RiggingError} RIGGING_LOCK_TIMEOUT if the guard cannot be taken within two minutes.
 */
export async function withLocalGuard<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const guard = `${path}.guard`;
  await ensureDir(dirname(path));
  const started = Date.now();
  for (;;) {
    try {
      await mkdir(guard);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      const st = await stat(guard);
      if (Date.now() - st.mtimeMs > GUARD_STALE_MS) {
        // Abandoned by a crashed holder. rmdir fails harmlessly if another process beat us to it.
        await rmdir(guard).catch(() => undefined);
        continue;
      }
    } catch {
      continue; // vanished between mkdir and stat: try again at once
    }
    if (Date.now() - started > GUARD_WAIT_MS) {
      throw fsError('RIGGING_LOCK_TIMEOUT', `could not enter the guard section "${guard}"; remove it if no process holds it`, {
        path,
        operation: 'guard',
      });
    }
    await sleep(10 + Math.floor(Math.random() * 40));
  }
  try {
    return await fn();
  } finally {
    await rmdir(guard).catch(() => undefined);
  }
}
