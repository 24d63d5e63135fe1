import { describe, expect, it } from 'vitest';
import { ExecutorError } from './errors.js';

describe('ExecutorError', () => {
  it('carries its code, details and cause', () => {
    const cause = new Error('inner');
    const e = new ExecutorError('EXECUTOR_STEP_FAILED', 'outer', { cause, details: { path: 'x' } });
    expect(e).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', details: { path: 'x' }, name: 'ExecutorError' });
    expect(e.cause).toBe(cause);
  });

  it('derives retryable from the code unless told otherwise', () => {
    expect(new ExecutorError('EXECUTOR_STEP_FAILED', 'x').retryable).toBe(false);
    expect(new ExecutorError('EXECUTOR_STEP_FAILED', 'x', { retryable: true }).retryable).toBe(true);
  });

  it('is recognised by brand, not by class identity', () => {
    const e = new ExecutorError('EXECUTOR_STEP_FAILED', 'x');
    expect(ExecutorError.is(e)).toBe(true);
    expect(ExecutorError.is({ ...e })).toBe(true);
    expect(ExecutorError.is(new Error('x'))).toBe(false);
    expect(ExecutorError.hasCode(e, 'EXECUTOR_STEP_FAILED')).toBe(true);
  });
});
