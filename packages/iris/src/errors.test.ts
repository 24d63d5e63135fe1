import { describe, expect, it } from 'vitest';
import { IrisError } from './errors.js';

describe('IrisError', () => {
  it('carries its code, details and cause', () => {
    const cause = new Error('inner');
    const e = new IrisError('IRIS_INVALID_ARGUMENT', 'outer', { cause, details: { path: 'x' } });
    expect(e).toMatchObject({ code: 'IRIS_INVALID_ARGUMENT', details: { path: 'x' }, name: 'IrisError' });
    expect(e.cause).toBe(cause);
  });

  it('derives retryable from the code unless told otherwise', () => {
    expect(new IrisError('IRIS_INSUFFICIENT_RESOURCES', 'x').retryable).toBe(true);
    expect(new IrisError('IRIS_INVALID_ARGUMENT', 'x', { retryable: true }).retryable).toBe(true);
  });

  it('is recognised by brand, not by class identity', () => {
    const e = new IrisError('IRIS_INVALID_ARGUMENT', 'x');
    expect(IrisError.is(e)).toBe(true);
    expect(IrisError.is({ ...e })).toBe(true);
    expect(IrisError.is(new Error('x'))).toBe(false);
    expect(IrisError.hasCode(e, 'IRIS_INVALID_ARGUMENT')).toBe(true);
  });
});

describe('gRPC status table', () => {
  it('round-trips every code through status and trailing metadata', async () => {
    const { irisErrorFromServiceError, IRIS_ERROR_GRPC_STATUS } = await import('./errors.js');
    const { grpcStatusOfError } = await import('./wire/grpc-errors.js');
    for (const code of Object.keys(IRIS_ERROR_GRPC_STATUS) as (keyof typeof IRIS_ERROR_GRPC_STATUS)[]) {
      const sent = grpcStatusOfError(new IrisError(code, 'bad thing'));
      expect(sent.code).toBe(IRIS_ERROR_GRPC_STATUS[code]);
      const serviceError = Object.assign(new Error('x'), { code: sent.code, details: sent.details, metadata: sent.metadata });
      const back = irisErrorFromServiceError(serviceError);
      expect(back).toMatchObject({ code, message: 'bad thing' });
      expect(back.cause).toBe(serviceError);
    }
  });

  it('uses the status numbers of @grpc/grpc-js, in both directions', async () => {
    const { irisErrorFromServiceError, IRIS_ERROR_GRPC_STATUS } = await import('./errors.js');
    const { Metadata, status } = await import('@grpc/grpc-js');
    expect(IRIS_ERROR_GRPC_STATUS).toEqual({
      IRIS_INVALID_ARGUMENT: status.INVALID_ARGUMENT,
      IRIS_BUNDLE_UNSAFE: status.INVALID_ARGUMENT,
      IRIS_BUNDLE_TOO_LARGE: status.INVALID_ARGUMENT,
      IRIS_JOB_NOT_FOUND: status.NOT_FOUND,
      IRIS_JOB_PRUNED: status.NOT_FOUND,
      IRIS_NOT_FOUND: status.NOT_FOUND,
      IRIS_ALREADY_EXISTS: status.ALREADY_EXISTS,
      IRIS_FAILED_PRECONDITION: status.FAILED_PRECONDITION,
      IRIS_UNAUTHENTICATED: status.UNAUTHENTICATED,
      IRIS_PERMISSION_DENIED: status.PERMISSION_DENIED,
      IRIS_INSUFFICIENT_RESOURCES: status.RESOURCE_EXHAUSTED,
      IRIS_UNAVAILABLE: status.UNAVAILABLE,
      IRIS_ENDPOINT_UNREACHABLE: status.UNAVAILABLE,
      IRIS_DEADLINE_EXCEEDED: status.DEADLINE_EXCEEDED,
      IRIS_CANCELLED: status.CANCELLED,
      IRIS_INTERNAL: status.INTERNAL,
    });
    const bare = (code: number) => Object.assign(new Error('x'), { code, details: 'd', metadata: new Metadata() });
    expect(irisErrorFromServiceError(bare(status.OUT_OF_RANGE)).code).toBe('IRIS_INVALID_ARGUMENT');
    expect(irisErrorFromServiceError(bare(status.PERMISSION_DENIED)).code).toBe('IRIS_PERMISSION_DENIED');
    expect(irisErrorFromServiceError(bare(status.UNAVAILABLE)).code).toBe('IRIS_UNAVAILABLE');
  });

  it('maps an unknown thrown value to IRIS_INTERNAL', async () => {
    const { grpcStatusOfError } = await import('./wire/grpc-errors.js');
    const { status } = await import('@grpc/grpc-js');
    expect(grpcStatusOfError(new Error('boom')).code).toBe(status.INTERNAL);
  });
});
