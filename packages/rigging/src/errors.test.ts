import { describe, expect, it } from 'vitest';
import { RiggingError } from './errors.js';

describe('RiggingError', () => {
  it('carries its code, details and cause', () => {
    const cause = new Error('inner');
    const e = new RiggingError('RIGGING_NOT_FOUND', 'outer', { cause, details: { path: 'x' } });
    expect(e).toMatchObject({ code: 'RIGGING_NOT_FOUND', details: { path: 'x' }, name: 'RiggingError' });
    expect(e.cause).toBe(cause);
  });

  it('derives retryable from the code unless told otherwise', () => {
    expect(new RiggingError('RIGGING_UNAVAILABLE', 'x').retryable).toBe(true);
    expect(new RiggingError('RIGGING_NOT_FOUND', 'x', { retryable: true }).retryable).toBe(true);
  });

  it('is recognised by brand, not by class identity', () => {
    const e = new RiggingError('RIGGING_NOT_FOUND', 'x');
    expect(RiggingError.is(e)).toBe(true);
    expect(RiggingError.is({ ...e })).toBe(true);
    expect(RiggingError.is(new Error('x'))).toBe(false);
    expect(RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')).toBe(true);
  });
});
