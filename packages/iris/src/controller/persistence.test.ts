import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LaunchJobRequest, RegisterRequest } from '../gen/iris/v1/controller.js';
import { JobState, LogSource, TaskState, WorkerMetadata } from '../gen/iris/v1/types.js';
import { ControllerState } from './controller-state.js';
import { openControllerDatabase } from './store/database.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function open(path: string, now: () => number) {
  const db = openControllerDatabase(path);
  return { db, state: new ControllerState({ db, clock: now, liveness: { workerUnreachableGraceMs: 1000, minUnreachableFailures: 1 }, warn: () => undefined }) };
}

const dump = (s: ControllerState) => {
  const all = (t: string) => s.store.db.prepare(`SELECT * FROM ${t} ORDER BY 1`).all();
  return { jobs: all('jobs'), tasks: all('tasks'), attempts: all('attempts'), workers: all('workers'), endpoints: all('endpoints'), logs: all('logs') };
};

describe('controller persistence', () => {
  it('reads back jobs, tasks, attempts, workers, endpoints and logs identically after a reopen', () => {
    dir = mkdtempSync(join(tmpdir(), 'iris-persist-'));
    const path = join(dir, 'controller.sqlite3');
    let now = 1_000;
    const first = open(path, () => now);
    first.state.register(RegisterRequest.fromPartial({ workerId: 'w', bootId: 'b', address: '127.0.0.1:1', metadata: WorkerMetadata.fromPartial({ cpuMillicores: 4000, memoryBytes: 2 ** 32 }) }));
    first.state.launchJob(LaunchJobRequest.fromPartial({ name: '/u/j', entrypoint: { run: { argv: ['true'] } }, resources: { cpuMillicores: 1000 }, replicas: 2 }));
    first.state.schedulingPass();
    const attempt = first.state.store.attempt('/u/j/0', 0)!;
    first.state.endpoints.register({ name: '/u/j/svc', address: 'h:1', taskId: '/u/j/0', attemptId: 0, metadata: { k: 'v' }, endpointId: 'e1' }, now);
    first.state.logs.append([{ taskId: '/u/j/0', attemptId: 0, attemptUid: attempt.attempt_uid, seq: 0, timestampMs: now, source: LogSource.LOG_SOURCE_STDOUT, level: 20, data: 'x' }]);
    const before = dump(first.state);
    first.db.close();
    now = 2_000;
    const second = open(path, () => now);
    expect(dump(second.state)).toEqual(before);
    expect(second.state.store.task('/u/j/0')!.state).toBe(TaskState.TASK_STATE_ASSIGNED);
    // The insertion sequence continues.
    second.state.launchJob(LaunchJobRequest.fromPartial({ name: '/u/k', entrypoint: { run: { argv: ['true'] } } }));
    expect(second.state.store.job('/u/k')!.seq).toBeGreaterThan(second.state.store.job('/u/j')!.seq);
    second.db.close();
  });

  it('prunes old terminal job trees with tasks and logs, keeping recent and active ones', () => {
    let now = 1;
    const { db, state } = open(':memory:', () => now);
    const launch = (name: string) => state.launchJob(LaunchJobRequest.fromPartial({ name, entrypoint: { run: { argv: ['true'] } } }));
    launch('/u/old');
    launch('/u/old/child');
    launch('/u/active');
    state.terminateJob('/u/old');
    state.logs.append([{ taskId: '/u/old/0', attemptId: 0, attemptUid: 'u', seq: 0, timestampMs: 0, source: 1, level: 20, data: 'x' }]);
    now = 5_000;
    launch('/u/recent');
    state.terminateJob('/u/recent');
    now = 10_000;
    expect(state.pruneJobs(6_000)).toBe(2);
    expect(state.store.job('/u/old')).toBeUndefined();
    expect(state.store.task('/u/old/0')).toBeUndefined();
    expect(db.prepare('SELECT COUNT(*) AS n FROM logs').get()).toEqual({ n: 0 });
    expect(state.store.job('/u/recent')!.state).toBe(JobState.JOB_STATE_KILLED);
    expect(state.store.job('/u/active')!.state).toBe(JobState.JOB_STATE_PENDING);
    db.close();
  });
});
