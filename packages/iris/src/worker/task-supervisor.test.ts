import { describe, expect, it } from 'vitest';
import { encodeReportAttempt } from '../../bin/task-supervisor-report.mjs';
import { ReportAttemptRequest } from '../gen/iris/v1/controller.js';
import { TaskState } from '../gen/iris/v1/types.js';

describe('the task supervisor\'s hand-encoded ReportAttemptRequest', () => {
  it('decodes with the generated code to the same fields', () => {
    const fields = { workerId: 'w-1', attemptUid: '9f2c04d1a7b3e855', state: TaskState.TASK_STATE_SUCCEEDED, exitCode: 0, error: 'é', finishedAtMs: 1_700_000_000_123 };
    expect(ReportAttemptRequest.decode(encodeReportAttempt(fields))).toEqual(fields);
    const killed = { ...fields, state: TaskState.TASK_STATE_KILLED, exitCode: 137, error: 'killed by its supervisor' };
    expect(ReportAttemptRequest.decode(encodeReportAttempt(killed))).toEqual(killed);
  });
});
