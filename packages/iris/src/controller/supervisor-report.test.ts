import { afterEach, describe, expect, it } from 'vitest';
import { ReportAttemptRequest } from '../gen/iris/v1/controller.js';
import { JobState, TaskState } from '../gen/iris/v1/types.js';
import { createStateHarness } from '../../test/helpers/controller-harness.js';

type Harness = ReturnType<typeof createStateHarness>;
let h: Harness;
afterEach(() => h?.close());

function report(uid: string, state: TaskState, fields: Partial<ReportAttemptRequest> = {}): boolean {
  return h.state.reportAttempt(ReportAttemptRequest.fromPartial({ workerId: 'w1', attemptUid: uid, state, ...fields }));
}

/** One job RUNNING on w1. */
function running(): string {
  h = createStateHarness({ graceMs: 1000, minFailures: 1 });
  h.registerWorker('w1');
  h.launch('/alice/j');
  h.tick();
  h.report('/alice/j/0', TaskState.TASK_STATE_RUNNING);
  return h.uidOf('/alice/j/0');
}

describe('ControllerState.reportAttempt (a supervisor speaking for its dead or stalled worker)', () => {
  it('records a process that exited 0 as SUCCEEDED, so the task is not run again when the worker is reaped', () => {
    const uid = running();
    expect(report(uid, TaskState.TASK_STATE_SUCCEEDED)).toBe(true);
    h.failReconcile('w1');
    h.advance(2000);
    h.failReconcile('w1');
    expect(h.count('workers')).toBe(0);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_SUCCEEDED);
    expect(h.state.store.task('/alice/j/0')).toMatchObject({ state: TaskState.TASK_STATE_SUCCEEDED, preemption_count: 0, current_attempt_id: 0 });
  });

  it('retries a task its supervisor killed as a worker failure at once, without waiting for the grace period', () => {
    const uid = running();
    report(uid, TaskState.TASK_STATE_KILLED, { exitCode: 137, error: 'killed by its supervisor: worker daemon exited' });
    expect(h.state.store.task('/alice/j/0')).toMatchObject({ state: TaskState.TASK_STATE_PENDING, preemption_count: 1, failure_count: 0 });
    expect(h.state.store.attempt('/alice/j/0', 0)).toMatchObject({ state: TaskState.TASK_STATE_WORKER_FAILED, is_worker_failure: 1 });
  });

  it('counts a non-zero exit against the failure budget, like the worker would have', () => {
    const uid = running();
    report(uid, TaskState.TASK_STATE_FAILED, { exitCode: 3, error: 'Exit code 3' });
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_FAILED);
  });

  it('never rewrites an attempt that is already terminal, nor one of another worker', () => {
    const uid = running();
    h.report('/alice/j/0', TaskState.TASK_STATE_FAILED, { exitCode: 1 });
    expect(report(uid, TaskState.TASK_STATE_SUCCEEDED)).toBe(false);
    expect(h.state.store.attempt('/alice/j/0', 0)).toMatchObject({ state: TaskState.TASK_STATE_FAILED });
    h.launch('/alice/k');
    h.tick();
    expect(h.state.reportAttempt(ReportAttemptRequest.fromPartial({ workerId: 'w2', attemptUid: h.uidOf('/alice/k/0'), state: TaskState.TASK_STATE_SUCCEEDED }))).toBe(false);
  });

  it('keeps a late SUCCEEDED from a worker that was already failed over in the attempt history, without changing the task', () => {
    const uid = running();
    h.failReconcile('w1');
    h.advance(2000);
    h.failReconcile('w1'); // reaped: attempt 0 WORKER_FAILED, the task back to PENDING for another run
    expect(h.state.store.attempt('/alice/j/0', 0)).toMatchObject({ state: TaskState.TASK_STATE_WORKER_FAILED, late_state: 0 });
    const before = h.state.store.task('/alice/j/0');
    report(uid, TaskState.TASK_STATE_SUCCEEDED, { exitCode: 0 });
    expect(h.state.store.attempt('/alice/j/0', 0)).toMatchObject({
      state: TaskState.TASK_STATE_WORKER_FAILED,
      late_state: TaskState.TASK_STATE_SUCCEEDED,
      late_exit_code: 0,
    });
    expect(h.state.store.task('/alice/j/0')).toEqual(before);
    const seen = h.state.getTaskStatus('/alice/j/0').attempts[0];
    expect(seen).toMatchObject({ state: TaskState.TASK_STATE_WORKER_FAILED, lateState: TaskState.TASK_STATE_SUCCEEDED, lateExitCode: 0 });
    expect(seen?.lateReportedAtMs).toBeGreaterThan(0);
    // A second report, or one from another worker, changes nothing.
    report(uid, TaskState.TASK_STATE_FAILED, { exitCode: 3 });
    expect(h.state.store.attempt('/alice/j/0', 0)).toMatchObject({ late_state: TaskState.TASK_STATE_SUCCEEDED });
  });

  it('rejects a live state with IRIS_INVALID_ARGUMENT', () => {
    const uid = running();
    expect(() => report(uid, TaskState.TASK_STATE_RUNNING)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});
