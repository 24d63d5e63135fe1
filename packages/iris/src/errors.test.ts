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
