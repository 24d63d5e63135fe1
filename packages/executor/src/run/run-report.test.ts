import { describe, expect, it } from 'vitest';
import { ExecutorError } from '../errors.js';
import { describeFailure } from './run-report.js';

describe('describeFailure()', () => {
  it('reports the innermost cause and the first code below the Step failed wrappers', () => {
    const root = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const lost = new ExecutorError('EXECUTOR_LEASE_LOST', 'Lease was lost during execution of a-123456', { cause: root });
    const step = new ExecutorError('EXECUTOR_STEP_FAILED', 'Step failed: a-123456', { cause: lost });
    const run = new ExecutorError('EXECUTOR_STEP_FAILED', '1 step(s) failed', { cause: step });
    expect(describeFailure(run)).toEqual({
      code: 'EXECUTOR_LEASE_LOST',
      cause: 'EACCES: permission denied',
      chain: ['1 step(s) failed', 'Step failed: a-123456', 'Lease was lost during execution of a-123456', 'EACCES: permission denied'],
      logs: null,
    });
  });

  it('takes a remote step’s cause from its job output and points at the job logs', () => {
    const step = new ExecutorError('EXECUTOR_STEP_FAILED', 'Step failed: w-123456; status=failed', {
      cause: new Error('job j-1 failed'),
      details: { jobId: 'j-1', logTail: ['starting', 'error: step w-123456 failed in worker mode: boom', '  at x', ''] },
    });
    expect(describeFailure(step)).toMatchObject({ cause: 'error: step w-123456 failed in worker mode: boom', logs: 'iris job logs j-1' });
  });

  it('keeps the code of a bare wrapper with no coded cause', () => {
    expect(describeFailure(new ExecutorError('EXECUTOR_STEP_FAILED', 'Step failed: a-1', { cause: new Error('x') }))).toMatchObject({
      code: 'EXECUTOR_STEP_FAILED',
      cause: 'x',
    });
  });
});
