import { Metadata } from '@grpc/grpc-js';
import type { ServiceError, status } from '@grpc/grpc-js';
import { IRIS_ERROR_CODE_METADATA_KEY, IRIS_ERROR_GRPC_STATUS, IrisError } from '../errors.js';
import type { IrisErrorCode } from '../errors.js';

/** The gRPC status and trailing metadata a server sends for `e` (any thrown value). */
export function grpcStatusOfError(e: unknown): { code: status; details: string; metadata: Metadata } {
  const err = IrisError.from(e);
  const metadata = new Metadata();
  metadata.set(IRIS_ERROR_CODE_METADATA_KEY, err.code);
  return { code: IRIS_ERROR_GRPC_STATUS[err.code], details: err.message, metadata };
}

/**
 * A server error with an explicit gRPC status, for the few answers whose status is not the code's
 * usual one (a worker refusing a request addressed to another worker id answers FAILED_PRECONDITION).
 * The client rebuilds the {@link IrisError} from the code in the metadata either way.
 */
export function grpcServiceError(code: status, irisCode: IrisErrorCode, message: string): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set(IRIS_ERROR_CODE_METADATA_KEY, irisCode);
  return { code, details: message, metadata };
}
