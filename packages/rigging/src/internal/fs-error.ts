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

const UNAVAILABLE_ERRNO = new Set(['ECONNRESET', 'ETIMEDOUT', 'ECONNREFUSED', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EBUSY']);

/** Maps an errno or HTTP status error to the closed rigging code (spec §3 error mapping). */
export function codeForError(err: unknown): RiggingErrorCode | null {
  if (RiggingError.is(err)) return err.code;
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { code?: unknown; status?: unknown; message?: unknown };
  const code = e.code;
  const status = typeof code === 'number' ? code : typeof e.status === 'number' ? e.status : null;
  if (typeof code === 'string') {
    if (code === 'ENOENT') return 'RIGGING_NOT_FOUND';
    if (code === 'EACCES' || code === 'EPERM') return 'RIGGING_PERMISSION_DENIED';
    if (UNAVAILABLE_ERRNO.has(code)) return 'RIGGING_UNAVAILABLE';
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
  return fsError(code, `${operation} "${path}": ${VERB[code]}`, { path, operation, cause: err });
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
