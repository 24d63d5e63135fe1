import { describe, expect, it } from 'vitest';
import { ExecutorError } from '../errors.js';
import { palette } from '../progress/colour.js';
import { failureCode, failureHint, formatFailureBlock, userFrame } from './failure-block.js';

function withStack(message: string, frames: string[], extra: Record<string, unknown> = {}): Error {
  const e = Object.assign(new Error(message), extra);
  e.stack = [`Error: ${message}`, ...frames.map((f) => `    at ${f}`)].join('\n');
  return e;
}

describe('failure blocks', () => {
  const own = ['/repo/packages/executor/src/', '/repo/packages/rigging/dist/'];

  it("finds the first frame in the user's own code, innermost error first", () => {
    const inner = withStack('ENOENT: no such file', [
      'async open (node:internal/fs/promises:639:25)',
      'readFile (/repo/packages/rigging/dist/index.js:10:3)',
      'computeStats (file:///home/me/exp/hello_world.js:37:22)',
      'call (/repo/packages/executor/src/run/step-runner.ts:72:12)',
    ]);
    const outer = new ExecutorError('EXECUTOR_STEP_FAILED', 'Step failed: s-1', { cause: inner, details: { step: 's-1' } });
    expect(userFrame(outer, own)).toBe('/home/me/exp/hello_world.js:37:22');
    expect(userFrame(withStack('x', ['f (/app/node_modules/lib/index.js:1:1)', 'g (node:internal/x:1:1)']), own)).toBeNull();
  });

  it("prefers our codes, else a system call's, and gives the hint of the code or the error's own", () => {
    const sys = new ExecutorError('EXECUTOR_STEP_FAILED', 'Step failed: s-1', { cause: Object.assign(new Error('ENOENT: x'), { code: 'ENOENT' }) });
    expect(failureCode(sys)).toBe('ENOENT');
    expect(failureHint(sys, 'ENOENT')).toMatch(/does not exist/);
    const lost = new ExecutorError('EXECUTOR_LEASE_LOST', 'Lease was lost during execution of s-1');
    expect(failureCode(lost)).toBe('EXECUTOR_LEASE_LOST');
    const own = new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'bad', { details: { hint: 'do this instead' } });
    expect(failureHint(own, 'EXECUTOR_INVALID_ARGUMENT')).toBe('do this instead');
    expect(failureHint(new Error('plain'), null)).toBeNull();
  });

  it('renders one block: cause and code, frame, logs and file, hint', () => {
    const inner = withStack('ENOENT: no such file', ['computeStats (/home/me/exp/hello_world.js:37:22)'], { code: 'ENOENT' });
    const err = new ExecutorError('EXECUTOR_STEP_FAILED', 'Step failed: s-1', { cause: inner, details: { step: 's-1', jobId: '/me/job-1' } });
    expect(formatFailureBlock({ label: 's-1', error: err, errorLog: '/tmp/run.log', c: palette(false) })).toEqual([
      'FAILED s-1: ENOENT: no such file [ENOENT]',
      '  at /home/me/exp/hello_world.js:37:22',
      '  logs: iris job logs /me/job-1 · full error: /tmp/run.log',
      '  hint: a path the step reads does not exist; check the step that should have written it',
    ]);
  });

  it("shows the last lines of a failed job's output that an error in the chain carries, and where the rest is", () => {
    const job = Object.assign(new Error('Levanter train_lm failed: ValueError: no cache'), {
      code: 'PIPELINE_JOB_FAILED',
      details: { logPath: '/out/logs/train_lm.log', outputTail: ['Traceback (most recent call last):', '  … 14 frames', 'ValueError: no cache'] },
    });
    const err = new ExecutorError('EXECUTOR_STEP_FAILED', 'Step failed: train-1', { cause: job, details: { step: 'train-1' } });
    expect(formatFailureBlock({ label: 'train-1', error: err, errorLog: null, c: palette(false) })).toEqual([
      'FAILED train-1: Levanter train_lm failed: ValueError: no cache [PIPELINE_JOB_FAILED]',
      "  last lines of the job's output (all of it: /out/logs/train_lm.log):",
      '    Traceback (most recent call last):',
      '      … 14 frames',
      '    ValueError: no cache',
    ]);
  });
});
