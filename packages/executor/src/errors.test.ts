import { describe, expect, it } from 'vitest';
import { ExecutorError, isStepFailureWrapper, stepFailed } from './errors.js';

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

describe('stepFailed()', () => {
  it('builds the one step-failure error, with the job status when there is one', () => {
    const cause = new Error('boom');
    const inline = stepFailed('tokenize-ab12cd', { cause });
    expect(inline).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', message: 'Step failed: tokenize-ab12cd', details: { step: 'tokenize-ab12cd' } });
    expect(inline.cause).toBe(cause);
    const job = stepFailed('train-1', { cause, status: 'stopped', details: { jobId: '/u/j', status: 'stopped', logTail: [] } });
    expect(job).toMatchObject({ message: 'Step failed: train-1; status=stopped', details: { step: 'train-1', jobId: '/u/j', status: 'stopped', logTail: [] } });
  });

  it('is recognised as a wrapper, like the run-level "<n> step(s) failed", and nothing else is', () => {
    expect(isStepFailureWrapper(stepFailed('s', { cause: null }))).toBe(true);
    expect(isStepFailureWrapper(new ExecutorError('EXECUTOR_STEP_FAILED', '2 step(s) failed'))).toBe(true);
    expect(isStepFailureWrapper(new ExecutorError('EXECUTOR_STEP_FAILED', 'job /u/j failed; its output ends with: x'))).toBe(false);
    expect(isStepFailureWrapper(new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'Step failed: s'))).toBe(false);
    expect(isStepFailureWrapper('Step failed: s')).toBe(false);
  });
});
