import type { ServiceError, status } from '@grpc/grpc-js';
import { CodedError, hasBrand } from '@marin/rigging';
import type { CodedErrorOptions } from '@marin/rigging';

/** Every error code of `@marin/iris`; callers branch on these, never on message text. */
export type IrisErrorCode =
  | 'IRIS_INVALID_ARGUMENT'
  | 'IRIS_BUNDLE_UNSAFE'
  | 'IRIS_BUNDLE_TOO_LARGE'
  | 'IRIS_JOB_NOT_FOUND'
  | 'IRIS_JOB_PRUNED'
  | 'IRIS_NOT_FOUND'
  | 'IRIS_ALREADY_EXISTS'
  | 'IRIS_FAILED_PRECONDITION'
  | 'IRIS_UNAUTHENTICATED'
  | 'IRIS_PERMISSION_DENIED'
  | 'IRIS_INSUFFICIENT_RESOURCES'
  | 'IRIS_UNAVAILABLE'
  | 'IRIS_ENDPOINT_UNREACHABLE'
  | 'IRIS_DEADLINE_EXCEEDED'
  | 'IRIS_CANCELLED'
  | 'IRIS_INTERNAL';

const RETRYABLE: ReadonlySet<IrisErrorCode> = new Set<IrisErrorCode>(['IRIS_INSUFFICIENT_RESOURCES', 'IRIS_UNAVAILABLE', 'IRIS_ENDPOINT_UNREACHABLE', 'IRIS_DEADLINE_EXCEEDED']);
const BRAND = Symbol.for('@marin/iris/IrisError');

/** Trailing-metadata key that carries the exact {@link IrisErrorCode} of a failed RPC. */
export const IRIS_ERROR_CODE_METADATA_KEY = 'iris-error-code';

/**
 * gRPC's status codes, the numbers of `status` in @grpc/grpc-js (the protocol fixes them). Written out so
 * that this module, and everything that only needs `IrisError` (the `@marin/iris/core` entry), loads
 * without gRPC's runtime; `errors.test.ts` checks them against the library.
 */
const GRPC = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  OUT_OF_RANGE: 11,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const satisfies Partial<Record<keyof typeof status, status>>;

/** The one table mapping each {@link IrisErrorCode} to its gRPC status (server side and client side). */
export const IRIS_ERROR_GRPC_STATUS: Readonly<Record<IrisErrorCode, status>> = {
  IRIS_INVALID_ARGUMENT: GRPC.INVALID_ARGUMENT,
  IRIS_BUNDLE_UNSAFE: GRPC.INVALID_ARGUMENT,
  IRIS_BUNDLE_TOO_LARGE: GRPC.INVALID_ARGUMENT,
  IRIS_JOB_NOT_FOUND: GRPC.NOT_FOUND,
  IRIS_JOB_PRUNED: GRPC.NOT_FOUND,
  IRIS_NOT_FOUND: GRPC.NOT_FOUND,
  IRIS_ALREADY_EXISTS: GRPC.ALREADY_EXISTS,
  IRIS_FAILED_PRECONDITION: GRPC.FAILED_PRECONDITION,
  IRIS_UNAUTHENTICATED: GRPC.UNAUTHENTICATED,
  IRIS_PERMISSION_DENIED: GRPC.PERMISSION_DENIED,
  IRIS_INSUFFICIENT_RESOURCES: GRPC.RESOURCE_EXHAUSTED,
  IRIS_UNAVAILABLE: GRPC.UNAVAILABLE,
  IRIS_ENDPOINT_UNREACHABLE: GRPC.UNAVAILABLE,
  IRIS_DEADLINE_EXCEEDED: GRPC.DEADLINE_EXCEEDED,
  IRIS_CANCELLED: GRPC.CANCELLED,
  IRIS_INTERNAL: GRPC.INTERNAL,
};

// Reverse direction for errors that arrive without our metadata (e.g. a connection failure).
const CODE_FOR_STATUS = new Map<status, IrisErrorCode>([
  [GRPC.INVALID_ARGUMENT, 'IRIS_INVALID_ARGUMENT'],
  [GRPC.OUT_OF_RANGE, 'IRIS_INVALID_ARGUMENT'],
  [GRPC.NOT_FOUND, 'IRIS_NOT_FOUND'],
  [GRPC.ALREADY_EXISTS, 'IRIS_ALREADY_EXISTS'],
  [GRPC.FAILED_PRECONDITION, 'IRIS_FAILED_PRECONDITION'],
  [GRPC.UNAUTHENTICATED, 'IRIS_UNAUTHENTICATED'],
  [GRPC.PERMISSION_DENIED, 'IRIS_PERMISSION_DENIED'],
  [GRPC.RESOURCE_EXHAUSTED, 'IRIS_INSUFFICIENT_RESOURCES'],
  [GRPC.UNAVAILABLE, 'IRIS_UNAVAILABLE'],
  [GRPC.DEADLINE_EXCEEDED, 'IRIS_DEADLINE_EXCEEDED'],
  [GRPC.CANCELLED, 'IRIS_CANCELLED'],
]);

const ALL_CODES = new Set(Object.keys(IRIS_ERROR_GRPC_STATUS));

/** The one error class of `@marin/iris`: a closed `code`, a `retryable` flag and a `cause` chain. */
export class IrisError extends CodedError<IrisErrorCode> {
  override readonly name = 'IrisError';
  readonly [BRAND] = true;

  constructor(code: IrisErrorCode, message: string, opts: CodedErrorOptions = {}) {
    super(code, message, opts, RETRYABLE);
  }

  /** Brand check that still works when two copies of the module are loaded. */
  static is(e: unknown): e is IrisError {
    return hasBrand(e, BRAND);
  }

  /** True when `e` is a IrisError carrying `code`. */
  static hasCode(e: unknown, code: IrisErrorCode): e is IrisError {
    return IrisError.is(e) && e.code === code;
  }

  /**
   * Wraps whatever a boundary caught: an IrisError passes through, a gRPC error is decoded, a full
   * disk is `IRIS_INSUFFICIENT_RESOURCES`, an unavailable filesystem `IRIS_UNAVAILABLE`, and anything
   * else (a bug) is `IRIS_INTERNAL`.
   */
  static from(e: unknown): IrisError {
    if (IrisError.is(e)) return e;
    if (isServiceError(e)) return irisErrorFromServiceError(e);
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && RESOURCE_ERRNOS.has(code)) {
      return new IrisError('IRIS_INSUFFICIENT_RESOURCES', `out of storage (${code}); free some disk space and retry`, { cause: e });
    }
    if (typeof code === 'string' && (UNAVAILABLE_ERRNOS.has(code) || code.startsWith('SQLITE_IOERR'))) return new IrisError('IRIS_UNAVAILABLE', `storage unavailable (${code})`, { cause: e });
    return new IrisError('IRIS_INTERNAL', e instanceof Error ? e.message : String(e), { cause: e });
  }
}

function isServiceError(e: unknown): e is ServiceError {
  return e instanceof Error && typeof (e as Partial<ServiceError>).code === 'number' && 'metadata' in e;
}

/** Errno (and SQLite) codes of a full disk or quota. */
const RESOURCE_ERRNOS = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'SQLITE_FULL']);
/** Errno codes of storage that is there but cannot be used right now. */
const UNAVAILABLE_ERRNOS = new Set(['EROFS', 'EIO', 'EMFILE', 'ENFILE', 'SQLITE_BUSY', 'SQLITE_IOERR', 'SQLITE_READONLY']);

/** Rebuilds the {@link IrisError} a server sent, keeping the grpc `ServiceError` as `cause`. */
export function irisErrorFromServiceError(e: ServiceError): IrisError {
  const sent = e.metadata?.get(IRIS_ERROR_CODE_METADATA_KEY)[0];
  const code: IrisErrorCode =
    typeof sent === 'string' && ALL_CODES.has(sent) ? (sent as IrisErrorCode) : (CODE_FOR_STATUS.get(e.code) ?? 'IRIS_INTERNAL');
  return new IrisError(code, e.details || e.message, { cause: e });
}
