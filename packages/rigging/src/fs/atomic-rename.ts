import { RiggingError } from '../errors.js';
import { ExponentialBackoff } from '../retry/exponential-backoff.js';
import { retryWithBackoff } from '../retry/retry-with-backoff.js';
import { filesystemFor } from './registry.js';
import { uniqueTempPath } from './temp-path.js';

/** Options of {@link atomicRename}; tests shorten the backoff. */
export interface AtomicRenameOptions {
  /** Backoff between rename attempts. @default ExponentialBackoff({ initialMs: 1000, maximumMs: 8000, factor: 2 }) */
  backoff?: ExponentialBackoff;
  /** Rename attempts for RIGGING_UNAVAILABLE errors. @default 4 */
  maxAttempts?: number;
  /** Where retry lines go. @default console.warn */
  log?: (line: string) => void;
}

/**
 * Lets `write` produce a file **or directory** at a temp sibling, then renames it onto `outputPath`.
 * The rename is retried (4 attempts) only for RIGGING_UNAVAILABLE. On any failure the temp path is
 * removed best-effort and the original error is rethrown. Returns `write`'s result.
 *
 * @example
 * await atomicRename('gs://b/out.json', (tmp) => writeText(tmp, '{}'));
 */
export async function atomicRename<T>(
  outputPath: string,
  write: (tmpPath: string) => Promise<T>,
  opts: AtomicRenameOptions = {},
): Promise<T> {
  const tmp = uniqueTempPath(outputPath);
  const fs = filesystemFor(outputPath);
  try {
    const result = await write(tmp);
    await retryWithBackoff(() => fs.rename(tmp, outputPath), {
      retryable: (e) => RiggingError.hasCode(e, 'RIGGING_UNAVAILABLE'),
      maxAttempts: opts.maxAttempts ?? 4,
      backoff: opts.backoff ?? new ExponentialBackoff({ initialMs: 1000, maximumMs: 8000, factor: 2 }),
      operation: `rename ${tmp} -> ${outputPath}`,
      ...(opts.log === undefined ? {} : { log: opts.log }),
    });
    return result;
  } catch (err) {
    await filesystemFor(tmp)
      .rm(tmp, { recursive: true, missingOk: true })
      .catch(() => undefined);
    throw err;
  }
}

/** Writes `data` to `url` through {@link atomicRename}. */
export async function atomicWrite(url: string, data: Uint8Array | string): Promise<void> {
  await atomicRename(url, (tmp) =>
    filesystemFor(tmp).writeBytes(tmp, typeof data === 'string' ? Buffer.from(data, 'utf8') : data),
  );
}
