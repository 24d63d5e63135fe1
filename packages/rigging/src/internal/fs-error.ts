import { RiggingError } from '../errors.js';
import type { RiggingErrorCode } from '../errors.js';

/** Builds a RiggingError whose details always carry `path` and `operation`. */
export function fsError(
  code: RiggingErrorCode,
  message: string,
  ctx: { path: string; operation: string; cause?: unknown; details?: Record<string, unknown> },
): RiggingError {
  return new RiggingError(code, message, {
    cause: ctx.cause,
    details: { ...ctx.details, path: ctx.path, operation: ctx.operation },
  });
}

/**
 * Every errno a filesystem call can raise, mapped to a rigging code: missing paths, refusals
 * (including a read-only filesystem), malformed requests (a parent that is a file, a directory
 * where a file is expected, a name too long), conditions that may pass (network, busy, full disk)
 * and operations the filesystem does not support. Errno names not listed still map, as
 * `RIGGING_UNAVAILABLE` (see {@link codeForError}), so no bare Node error escapes a backend.
 */
const ERRNO_CODES: Readonly<Record<string, RiggingErrorCode>> = {
  ENOENT: 'RIGGING_NOT_FOUND',
  EACCES: 'RIGGING_PERMISSION_DENIED',
  EPERM: 'RIGGING_PERMISSION_DENIED',
  EROFS: 'RIGGING_PERMISSION_DENIED',
  ENOTDIR: 'RIGGING_INVALID_ARGUMENT',
  EISDIR: 'RIGGING_INVALID_ARGUMENT',
  EEXIST: 'RIGGING_INVALID_ARGUMENT',
  ENOTEMPTY: 'RIGGING_INVALID_ARGUMENT',
  ENAMETOOLONG: 'RIGGING_INVALID_ARGUMENT',
  ELOOP: 'RIGGING_INVALID_ARGUMENT',
  EINVAL: 'RIGGING_INVALID_ARGUMENT',
  EBADF: 'RIGGING_INVALID_ARGUMENT',
  EFBIG: 'RIGGING_INVALID_ARGUMENT',
  EXDEV: 'RIGGING_UNSUPPORTED',
  ENOSYS: 'RIGGING_UNSUPPORTED',
  ENOTSUP: 'RIGGING_UNSUPPORTED',
  EOPNOTSUPP: 'RIGGING_UNSUPPORTED',
  ECONNRESET: 'RIGGING_UNAVAILABLE',
  ETIMEDOUT: 'RIGGING_UNAVAILABLE',
  ECONNREFUSED: 'RIGGING_UNAVAILABLE',
  EPIPE: 'RIGGING_UNAVAILABLE',
  EAI_AGAIN: 'RIGGING_UNAVAILABLE',
  ENOTFOUND: 'RIGGING_UNAVAILABLE',
  EBUSY: 'RIGGING_UNAVAILABLE',
  EAGAIN: 'RIGGING_UNAVAILABLE',
  EINTR: 'RIGGING_UNAVAILABLE',
  EIO: 'RIGGING_UNAVAILABLE',
  EMFILE: 'RIGGING_UNAVAILABLE',
  ENFILE: 'RIGGING_UNAVAILABLE',
  ENOSPC: 'RIGGING_UNAVAILABLE',
  EDQUOT: 'RIGGING_UNAVAILABLE',
  ESTALE: 'RIGGING_UNAVAILABLE',
};

/** Unavailable, but retrying will not help until someone frees space or fixes the mount. */
const NOT_RETRYABLE_ERRNO = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'ESTALE']);

/** What the errno means, for messages (`write "/x": read-only file system (EROFS)`). */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a parent of the path is not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'already exists',
  ENOTEMPTY: 'directory not empty',
  ENAMETOOLONG: 'name too long',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
};

function isErrnoName(code: string): boolean {
  return /^E[A-Z0-9_]+$/.test(code);
}

/** Maps an errno or HTTP status error to the closed rigging code (the table in `src/fs/DESIGN.md`). */
export function codeForError(err: unknown): RiggingErrorCode | null {
  if (RiggingError.is(err)) return err.code;
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { code?: unknown; status?: unknown; message?: unknown };
  const code = e.code;
  const status = typeof code === 'number' ? code : typeof e.status === 'number' ? e.status : null;
  if (typeof code === 'string') {
    const mapped = ERRNO_CODES[code];
    if (mapped !== undefined) return mapped;
    // Any other errno from a system call (it carries `syscall`) is still a storage failure.
    if (isErrnoName(code) && typeof (err as { syscall?: unknown }).syscall === 'string') return 'RIGGING_UNAVAILABLE';
  }
  if (status !== null) {
    if (status === 404) return 'RIGGING_NOT_FOUND';
    if (status === 401 || status === 403) return 'RIGGING_PERMISSION_DENIED';
    if (status === 412) return 'RIGGING_CONDITIONAL_WRITE_FAILED';
    if (status === 429 || (status >= 500 && status < 600)) return 'RIGGING_UNAVAILABLE';
  }
  if (typeof e.message === 'string' && /socket hang up/i.test(e.message)) return 'RIGGING_UNAVAILABLE';
  return null;
}

const VERB: Record<RiggingErrorCode, string> = {
  RIGGING_NOT_FOUND: 'not found',
  RIGGING_PERMISSION_DENIED: 'permission denied',
  RIGGING_UNAVAILABLE: 'storage temporarily unavailable',
  RIGGING_BUDGET_EXCEEDED: 'transfer budget exceeded',
  RIGGING_CONDITIONAL_WRITE_FAILED: 'conditional write failed: the object changed',
  RIGGING_LEASE_LOST: 'lease lost',
  RIGGING_LOCK_TIMEOUT: 'lock timeout',
  RIGGING_UNSUPPORTED: 'unsupported',
  RIGGING_INVALID_ARGUMENT: 'invalid argument',
  RIGGING_ENV_BUILD_FAILED: 'environment build failed',
};

/**
 * Wraps whatever a storage call threw as a RiggingError with `path`/`operation` details and the
 * original as `cause`. RiggingErrors pass through unchanged; errors the mapping does not recognise are
 * returned as they are.
 */
export function wrapFsError(err: unknown, path: string, operation: string): unknown {
  if (RiggingError.is(err)) return err;
  const code = codeForError(err);
  if (code === null) return err;
  const errno = (err as { code?: unknown }).code;
  const what = typeof errno === 'string' && isErrnoName(errno) ? `${ERRNO_TEXT[errno] ?? VERB[code]} (${errno})` : VERB[code];
  // The path that failed may be a parent the call created (mkdir of a read-only prefix).
  const failedPath = (err as { path?: unknown }).path;
  return new RiggingError(code, `${operation} "${path}": ${what}`, {
    cause: err,
    retryable: code === 'RIGGING_UNAVAILABLE' && typeof errno === 'string' && NOT_RETRYABLE_ERRNO.has(errno) ? false : undefined,
    details: {
      path,
      operation,
      ...(typeof errno === 'string' ? { errno } : {}),
      ...(typeof failedPath === 'string' && failedPath !== path ? { failedPath } : {}),
    },
  });
}

/** Runs `fn` and rethrows its failure through {@link wrapFsError}. */
export async function mapFsErrors<T>(path: string, operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw wrapFsError(err, path, operation);
  }
}

/** The error for a missing path. */
export function notFound(path: string, operation: string, cause?: unknown): RiggingError {
  return fsError('RIGGING_NOT_FOUND', `${operation} "${path}": no such file or directory`, { path, operation, cause });
}
