import { afterEach, describe, expect, it } from 'vitest';
import { JobPreemptionPolicy, JobState, StopReason, TaskState } from '../gen/iris/v1/types.js';
import { createStateHarness } from '../../test/helpers/controller-harness.js';
import { commitSchedulingResult } from './scheduling.js';

type Harness = ReturnType<typeof createStateHarness>;
let h: Harness;
afterEach(() => h?.close());

const S = TaskState;
const tpu = { resources: { cpuMillicores: 100, device: { kind: { $case: 'tpu' as const, value: { variant: 'v5litepod-16', topology: '', count: 0 } } } } };

function slice(name: string) {
  for (let i = 0; i < 4; i++) {
    h.registerWorker(`${name}-${i}`, { tpu: { variant: 'v5litepod-16', chips: 4 }, attributes: { 'tpu-name': name, 'tpu-worker-id': i, 'tpu-vm-count': 4 } });
  }
}

describe('ControllerState: coscheduled failure domain', () => {
  it('a terminal member failure moves siblings to COSCHED_FAILED and stops them', () => {
    h = createStateHarness();
    slice('a');
    h.launch('/u/g', tpu);
    h.tick();
    for (let i = 0; i < 4; i++) h.report(`/u/g/${i}`, S.TASK_STATE_RUNNING);
    h.report('/u/g/1', S.TASK_STATE_FAILED, { exitCode: 2 });
    expect([0, 1, 2, 3].map((i) => h.taskState(`/u/g/${i}`))).toEqual([S.TASK_STATE_COSCHED_FAILED, S.TASK_STATE_FAILED, S.TASK_STATE_COSCHED_FAILED, S.TASK_STATE_COSCHED_FAILED]);
    expect(h.jobState('/u/g')).toBe(JobState.JOB_STATE_FAILED);
    expect(h.plan('a-0').desired[0]?.intent).toEqual({ $case: 'stop', value: StopReason.STOP_REASON_JOB_TERMINATED });
  });

  it('a retriable member failure bounces live siblings free of charge; the gang is placed again whole', () => {
    h = createStateHarness();
    slice('a');
    h.launch('/u/g', { ...tpu, maxRetriesFailure: 1 });
    h.tick();
    for (let i = 0; i < 4; i++) h.report(`/u/g/${i}`, S.TASK_STATE_RUNNING);
    h.report('/u/g/1', S.TASK_STATE_FAILED, { exitCode: 2 });
    for (let i = 0; i < 4; i++) expect(h.taskState(`/u/g/${i}`)).toBe(S.TASK_STATE_PENDING);
    expect(h.state.store.task('/u/g/0')).toMatchObject({ failure_count: 0, preemption_count: 0 });
    expect(h.plan('a-0').desired[0]?.intent).toEqual({ $case: 'stop', value: StopReason.STOP_REASON_SUPERSEDED });
    h.tick();
    expect(h.taskState('/u/g/0')).toBe(S.TASK_STATE_PENDING); // old processes still hold the chips
    for (const w of ['a-0', 'a-2', 'a-3']) {
      const d = h.plan(w).desired[0]!;
      h.respond(w, [{ attemptUid: d.attemptUid, state: S.TASK_STATE_KILLED }]);
    }
    h.tick();
    for (let i = 0; i < 4; i++) expect(h.taskState(`/u/g/${i}`)).toBe(S.TASK_STATE_ASSIGNED);
  });

  it('success leaves siblings alone; non-gang jobs never cascade', () => {
    h = createStateHarness();
    slice('a');
    h.registerWorker('cpu', { cpu: 8 });
    h.launch('/u/g', tpu);
    h.launch('/u/plain', { replicas: 2 });
    h.tick();
    h.finish('/u/g/0', S.TASK_STATE_SUCCEEDED);
    expect(h.taskState('/u/g/1')).toBe(S.TASK_STATE_ASSIGNED);
    h.state.store.tasksOfJob('/u/plain');
    h.launch('/u/tolerant', { replicas: 2, maxTaskFailures: 1 });
    h.tick();
    h.finish('/u/tolerant/0', S.TASK_STATE_FAILED, 1);
    expect(h.taskState('/u/tolerant/1')).not.toBe(S.TASK_STATE_COSCHED_FAILED);
    expect(h.taskState('/u/tolerant/1')).not.toBe(S.TASK_STATE_KILLED);
  });

  it('two gangs never double-book one slice; the second waits for another slice', () => {
    h = createStateHarness();
    slice('a');
    h.launch('/u/g1', tpu);
    h.launch('/u/g2', tpu);
    h.tick();
    expect(h.taskState('/u/g1/0')).toBe(S.TASK_STATE_ASSIGNED);
    expect(h.taskState('/u/g2/0')).toBe(S.TASK_STATE_PENDING);
    expect(h.state.pending.get('/u/g2')?.reason).toMatch(/coscheduling|TPU/);
    slice('b');
    h.tick();
    const workersOf = (job: string) => new Set(h.state.store.tasksOfJob(job).map((t) => h.state.store.attempt(t.task_id, t.current_attempt_id)!.worker_id.split('-')[0]));
    expect(workersOf('/u/g2')).toEqual(new Set(['b']));
  });
});

describe('ControllerState: parent and child jobs', () => {
  it('a failed parent kills its children; a succeeded one leaves them running', () => {
    h = createStateHarness();
    h.registerWorker('w', { cpu: 8 });
    h.launch('/u/p');
    h.launch('/u/p/c');
    h.launch('/u/p/c/g');
    h.launch('/u/q');
    h.launch('/u/q/c');
    h.tick();
    h.tick();
    h.finish('/u/p/0', S.TASK_STATE_FAILED, 1);
    expect(h.jobState('/u/p/c')).toBe(JobState.JOB_STATE_KILLED);
    expect(h.jobState('/u/p/c/g')).toBe(JobState.JOB_STATE_KILLED);
    h.finish('/u/q/0', S.TASK_STATE_SUCCEEDED);
    expect(h.jobState('/u/q')).toBe(JobState.JOB_STATE_SUCCEEDED);
    expect(h.jobState('/u/q/c')).toBe(JobState.JOB_STATE_RUNNING);
  });

  it('terminate kills descendants deepest first', () => {
    h = createStateHarness();
    h.registerWorker('w', { cpu: 8 });
    h.launch('/u/p');
    h.launch('/u/p/c');
    h.launch('/u/p/c/g');
    h.tick();
    const order: string[] = [];
    h.state.onJobsChanged((ids) => order.push(...ids));
    h.state.terminateJob('/u/p');
    const finished = ['/u/p', '/u/p/c', '/u/p/c/g'].map((id) => ({ id, seq: h.state.store.job(id)! }));
    for (const f of finished) expect(f.seq.state).toBe(JobState.JOB_STATE_KILLED);
    expect(order.indexOf('/u/p/c/g')).toBeLessThan(order.indexOf('/u/p'));
  });

  it('a parent retried after a worker failure: single-task kills children, multi-task preserves, explicit PRESERVE preserves', () => {
    const run = (replicas: number, policy: JobPreemptionPolicy) => {
      h = createStateHarness();
      h.registerWorker('w', { cpu: 8 });
      h.launch('/u/p', { replicas, preemptionPolicy: policy });
      h.launch('/u/p/c');
      h.tick();
      h.report('/u/p/0', S.TASK_STATE_RUNNING);
      h.report('/u/p/0', S.TASK_STATE_MISSING);
      const child = h.jobState('/u/p/c');
      h.close();
      return child;
    };
    expect(run(1, JobPreemptionPolicy.JOB_PREEMPTION_POLICY_UNSPECIFIED)).toBe(JobState.JOB_STATE_KILLED);
    expect(run(2, JobPreemptionPolicy.JOB_PREEMPTION_POLICY_UNSPECIFIED)).not.toBe(JobState.JOB_STATE_KILLED);
    expect(run(1, JobPreemptionPolicy.JOB_PREEMPTION_POLICY_PRESERVE_CHILDREN)).not.toBe(JobState.JOB_STATE_KILLED);
    expect(run(2, JobPreemptionPolicy.JOB_PREEMPTION_POLICY_TERMINATE_CHILDREN)).toBe(JobState.JOB_STATE_KILLED);
  });
});

describe('ControllerState: endpoints', () => {
  const register = (taskId: string, name = '/u/j/svc') => {
    const task = h.state.store.task(taskId)!;
    return h.state.endpoints.register({ name, address: 'h:1', taskId, attemptId: task.current_attempt_id, metadata: {}, endpointId: '' }, h.now);
  };

  it('are visible while running, kept across BUILDING → RUNNING, gone at success', () => {
    h = createStateHarness();
    h.registerWorker('w');
    h.launch('/u/j');
    h.tick();
    h.report('/u/j/0', S.TASK_STATE_BUILDING);
    register('/u/j/0');
    h.report('/u/j/0', S.TASK_STATE_RUNNING);
    expect(h.state.endpoints.list({ prefix: '/u/j/', exact: '' })).toHaveLength(1);
    h.report('/u/j/0', S.TASK_STATE_SUCCEEDED);
    expect(h.state.endpoints.list({ prefix: '/u/j/', exact: '' })).toHaveLength(0);
  });

  it('are gone at retry and at worker loss', () => {
    h = createStateHarness({ graceMs: 0, minFailures: 1 });
    h.registerWorker('w');
    h.launch('/u/j', { maxRetriesFailure: 1 });
    h.tick();
    h.report('/u/j/0', S.TASK_STATE_RUNNING);
    register('/u/j/0');
    h.report('/u/j/0', S.TASK_STATE_FAILED, { exitCode: 1 });
    expect(h.state.endpoints.list({ prefix: '/u/', exact: '' })).toHaveLength(0);
    h.tick();
    h.report('/u/j/0', S.TASK_STATE_RUNNING);
    register('/u/j/0');
    h.failReconcile('w');
    expect(h.state.endpoints.list({ prefix: '/u/', exact: '' })).toHaveLength(0);
  });

  it('reject a terminal task, a non-current attempt, and names outside the root namespace; prefixes isolate trees', () => {
    h = createStateHarness();
    h.registerWorker('w');
    h.launch('/u/j');
    h.launch('/u/k');
    h.tick();
    expect(() => register('/u/j/0', '/u/other/x')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(() => register('/u/j/0', '/system/x')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(() => h.state.endpoints.register({ name: '/u/j/x', address: 'h:1', taskId: '/u/j/0', attemptId: 5, metadata: {}, endpointId: '' }, h.now)).toThrow(
      expect.objectContaining({ code: 'IRIS_FAILED_PRECONDITION' }),
    );
    register('/u/j/0', '/u/j/a');
    register('/u/k/0', '/u/k/a');
    expect(h.state.endpoints.list({ prefix: '/u/j/', exact: '' }).map((e) => e.name)).toEqual(['/u/j/a']);
    h.finish('/u/j/0', S.TASK_STATE_SUCCEEDED);
    expect(() => register('/u/j/0', '/u/j/b')).toThrow(expect.objectContaining({ code: 'IRIS_FAILED_PRECONDITION' }));
  });
});

describe('ControllerState: capacity', () => {
  it('committed resources block over-subscription; completion frees them; small tasks fill a worker over ticks', () => {
    h = createStateHarness({ limits: { maxAssignmentsPerWorker: 2 } });
    h.registerWorker('w', { cpu: 4 });
    h.launch('/u/big', { replicas: 3, resources: { cpuMillicores: 2000 } });
    h.tick();
    const states = () => [0, 1, 2].map((i) => h.taskState(`/u/big/${i}`));
    expect(states().filter((s) => s === S.TASK_STATE_ASSIGNED)).toHaveLength(2);
    h.tick();
    expect(states().filter((s) => s === S.TASK_STATE_ASSIGNED)).toHaveLength(2);
    h.finish('/u/big/0', S.TASK_STATE_SUCCEEDED);
    h.tick();
    expect(h.taskState('/u/big/2')).toBe(S.TASK_STATE_ASSIGNED);
    h.launch('/u/small', { replicas: 4, resources: { cpuMillicores: 0, memoryBytes: 1 } });
    h.tick();
    h.tick();
    expect([0, 1, 2, 3].every((i) => h.taskState(`/u/small/${i}`) === S.TASK_STATE_ASSIGNED)).toBe(true);
  });

  it('drops an assignment to a worker that vanished before the commit', () => {
    h = createStateHarness();
    h.registerWorker('w');
    h.launch('/u/j');
    h.state.mutate((ctx) =>
      commitSchedulingResult(ctx, { assignments: [{ taskId: '/u/j/0', jobId: '/u/j', workerId: 'vanished', band: 'INTERACTIVE' }], expiredTaskIds: [], pendingJobs: [], preemptions: [] }),
    );
    expect(h.state.store.task('/u/j/0')).toMatchObject({ state: S.TASK_STATE_PENDING, current_attempt_id: -1 });
  });
});
