import { describe, expect, it } from 'vitest';
import { StopReason, TaskState } from '../gen/iris/v1/types.js';
import type { RunTaskRequest } from '../gen/iris/v1/types.js';
import type { AttemptObservation, DesiredAttempt } from '../gen/iris/v1/worker.js';
import type { ReconcilableAttempt } from './attempt.js';
import { AttemptTable } from './attempt-table.js';

/** An attempt driven by the test instead of a process. */
class FakeAttempt implements ReconcilableAttempt {
  state: TaskState = TaskState.TASK_STATE_BUILDING;
  starts = 0;
  stops: StopReason[] = [];
  constructor(readonly uid: string) {}
  get live(): boolean {
    return this.state === TaskState.TASK_STATE_BUILDING || this.state === TaskState.TASK_STATE_RUNNING;
  }
  start(): void {
    this.starts += 1;
  }
  async stop(reason: StopReason): Promise<void> {
    this.stops.push(reason);
    this.state = TaskState.TASK_STATE_KILLED;
  }
  observe(): AttemptObservation {
    return { attemptUid: this.uid, state: this.state, exitCode: 0, error: '', startedAtMs: 0, finishedAtMs: 0, ports: {} };
  }
}

function spec(uid: string): RunTaskRequest {
  return {
    jobId: '/u/j',
    taskToken: '',
    taskId: '/u/j/0',
    taskIndex: 0,
    numTasks: 1,
    attemptId: 0,
    attemptUid: uid,
    user: 'u',
    bundleId: '',
    ports: [],
    constraints: [],
    timeoutMs: 0,
    entrypoint: { setupCommands: [], run: { argv: ['true'] }, workdirFiles: {}, inPlace: false, workdir: '' },
  };
}

const run = (uid: string, withSpec: boolean): DesiredAttempt => ({
  attemptUid: uid,
  taskId: '/u/j/0',
  attemptId: 0,
  intent: { $case: 'run', value: withSpec ? { request: spec(uid) } : {} },
});
const stop = (uid: string, reason: StopReason): DesiredAttempt => ({
  attemptUid: uid,
  taskId: '/u/j/0',
  attemptId: 0,
  intent: { $case: 'stop', value: reason },
});

function setup(): { table: AttemptTable; created: Map<string, FakeAttempt> } {
  const created = new Map<string, FakeAttempt>();
  const table = new AttemptTable({
    create: (s) => {
      const a = new FakeAttempt(s.attemptUid);
      created.set(s.attemptUid, a);
      return a;
    },
  });
  return { table, created };
}

describe('AttemptTable.reconcile()', () => {
  it('reports MISSING for an unknown uid without a spec and starts nothing', () => {
    const { table, created } = setup();
    expect(table.reconcile([run('a1', false)])).toEqual([expect.objectContaining({ attemptUid: 'a1', state: TaskState.TASK_STATE_MISSING })]);
    expect(created.size).toBe(0);
  });

  it('starts an unknown uid that comes with a spec, once', () => {
    const { table, created } = setup();
    expect(table.reconcile([run('a1', true)])[0]).toMatchObject({ attemptUid: 'a1', state: TaskState.TASK_STATE_BUILDING });
    table.reconcile([run('a1', true)]);
    table.reconcile([run('a1', false)]);
    expect(created.get('a1')?.starts).toBe(1);
  });

  it('keeps a terminal state sticky even when the spec is sent again', () => {
    const { table, created } = setup();
    table.reconcile([run('a1', true)]);
    (created.get('a1') as FakeAttempt).state = TaskState.TASK_STATE_SUCCEEDED;
    expect(table.reconcile([run('a1', true)])[0]).toMatchObject({ state: TaskState.TASK_STATE_SUCCEEDED });
    expect(created.get('a1')?.starts).toBe(1);
  });

  it('stops a live attempt on a stop intent and stays idempotent', () => {
    const { table, created } = setup();
    table.reconcile([run('a1', true)]);
    table.reconcile([stop('a1', StopReason.STOP_REASON_CANCELLED)]);
    const obs = table.reconcile([stop('a1', StopReason.STOP_REASON_CANCELLED)]);
    expect(created.get('a1')?.stops).toEqual([StopReason.STOP_REASON_CANCELLED]);
    expect(obs[0]).toMatchObject({ attemptUid: 'a1', state: TaskState.TASK_STATE_KILLED });
  });

  it('answers a stop for a uid it never ran with KILLED', () => {
    const { table } = setup();
    expect(table.reconcile([stop('ghost', StopReason.STOP_REASON_JOB_TERMINATED)])[0]).toMatchObject({
      attemptUid: 'ghost',
      state: TaskState.TASK_STATE_KILLED,
    });
  });

  it('kills a live attempt that is no longer desired and reports it exactly once', () => {
    const { table, created } = setup();
    table.reconcile([run('a1', true), run('a2', true)]);
    const first = table.reconcile([run('a2', false)]);
    expect(first.map((o) => o.attemptUid).sort()).toEqual(['a1', 'a2']);
    expect(created.get('a1')?.stops).toEqual([StopReason.STOP_REASON_SUPERSEDED]);
    expect(table.reconcile([run('a2', false)]).map((o) => o.attemptUid)).toEqual(['a2']);
  });

  it('forgets a terminal attempt once the controller stops listing it', () => {
    const { table, created } = setup();
    table.reconcile([run('a1', true)]);
    (created.get('a1') as FakeAttempt).state = TaskState.TASK_STATE_FAILED;
    expect(table.reconcile([])).toEqual([]);
    expect(table.get('a1')).toBeUndefined();
    // Listed again without a spec after being forgotten: the worker no longer has it.
    expect(table.reconcile([run('a1', false)])[0]).toMatchObject({ state: TaskState.TASK_STATE_MISSING });
  });

  it('observes only desired uids and this call zombies', () => {
    const { table } = setup();
    table.reconcile([run('a1', true)]);
    expect(table.reconcile([run('a1', false), run('b', false)]).map((o) => o.attemptUid)).toEqual(['a1', 'b']);
  });

  it('stops every live attempt on stopAll', async () => {
    const { table, created } = setup();
    table.reconcile([run('a1', true), run('a2', true)]);
    await table.stopAll();
    expect(table.liveCount).toBe(0);
    expect(created.get('a2')?.stops).toEqual([StopReason.STOP_REASON_WORKER_DRAIN]);
  });
});
