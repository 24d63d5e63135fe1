import { describe, expect, it } from 'vitest';
import { JOB_STATUSES, isFinished } from './job-status.js';

describe('isFinished()', () => {
  it('is true exactly for succeeded, failed and stopped', () => {
    expect(JOB_STATUSES.filter(isFinished)).toEqual(['succeeded', 'failed', 'stopped']);
  });
});
