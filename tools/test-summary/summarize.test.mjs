import { describe, expect, it } from 'vitest';
import { countReport } from './summarize.mjs';

const test = (status) => ({ status, title: status });

describe('countReport', () => {
  it('counts passed, failed and skipped tests as the report gives them', () => {
    const report = {
      numPassedTests: 3,
      numFailedTests: 1,
      numPendingTests: 1,
      numTodoTests: 0,
      testResults: [
        { status: 'failed', assertionResults: [test('passed'), test('failed'), test('skipped')] },
        { status: 'passed', assertionResults: [test('passed'), test('passed')] },
      ],
    };
    expect(countReport(report)).toEqual({ passed: 3, failed: 1, skipped: 1 });
  });

  it('counts the tests of a file whose beforeAll threw as failed, not skipped', () => {
    // What Vitest writes when a suite's set-up fails: the file failed, every test of it "skipped".
    const report = {
      numPassedTests: 2,
      numFailedTests: 0,
      numPendingTests: 3,
      testResults: [
        { status: 'failed', message: 'the server did not start', assertionResults: [test('skipped'), test('skipped'), test('skipped')] },
        { status: 'passed', assertionResults: [test('passed'), test('passed')] },
      ],
    };
    expect(countReport(report)).toEqual({ passed: 2, failed: 3, skipped: 0 });
  });

  it('counts a file that failed to import (no tests at all) as one failure', () => {
    const report = { numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, testResults: [{ status: 'failed', message: 'SyntaxError', assertionResults: [] }] };
    expect(countReport(report)).toEqual({ passed: 0, failed: 1, skipped: 0 });
  });
});
