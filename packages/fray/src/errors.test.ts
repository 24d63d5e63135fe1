import { describe, expect, it } from 'vitest';
import { FrayError } from './errors.js';

describe('FrayError', () => {
  it('carries its code, details and cause', () => {
    const cause = new Error('inner');
    const e = new FrayError('FRAY_JOB_FAILED', 'outer', { cause, details: { path: 'x' } });
    expect(e).toMatchObject({ code: 'FRAY_JOB_FAILED', details: { path: 'x' }, name: 'FrayError' });
    expect(e.cause).toBe(cause);
  });

  it('derives retryable from the code unless told otherwise', () => {
    expect(new FrayError('FRAY_BACKEND_UNAVAILABLE', 'x').retryable).toBe(true);
    expect(new FrayError('FRAY_JOB_FAILED', 'x', { retryable: true }).retryable).toBe(true);
  });

  it('is recognised by brand, not by class identity', () => {
    const e = new FrayError('FRAY_JOB_FAILED', 'x');
    expect(FrayError.is(e)).toBe(true);
    expect(FrayError.is({ ...e })).toBe(true);
    expect(FrayError.is(new Error('x'))).toBe(false);
    expect(FrayError.hasCode(e, 'FRAY_JOB_FAILED')).toBe(true);
  });
});
