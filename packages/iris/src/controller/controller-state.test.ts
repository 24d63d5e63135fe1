import { afterEach, describe, expect, it } from 'vitest';
import { ConstraintOp, JobState, StopReason, TaskState } from '../gen/iris/v1/types.js';
import { createStateHarness } from '../../test/helpers/controller-harness.js';

type Harness = ReturnType<typeof createStateHarness>;
let h: Harness;
afterEach(() => h?.close());

describe('ControllerState: submission', () => {
  it('expands replicas into PENDING tasks 0..N-1 with copied retry limits', () => {
    h = createStateHarness();
    const id = h.launch('/alice/train', { replicas: 3, maxRetriesFailure: 2 });
    expect(id).toBe('/alice/train');
    const tasks = h.state.store.tasksOfJob(id);
    expect(tasks.map((t) => [t.task_id, t.task_index, t.state, t.max_retries_failure, t.max_retries_preemption])).toEqual([
      ['/alice/train/0', 0, TaskState.TASK_STATE_PENDING, 2, 100],
      ['/alice/train/1', 1, TaskState.TASK_STATE_PENDING, 2, 100],
      ['/alice/train/2', 2, TaskState.TASK_STATE_PENDING, 2, 100],
    ]);
  });

  it.each([
    ['empty name', { name: '' }],
    ['bad name', { name: 'alice/train' }],
    ['all-digit job name', { name: '/alice/123' }],
    ['negative cpu', { resources: { cpuMillicores: -1 } }],
    ['IRIS_ env key', { environment: { envVars: { IRIS_JOB_ID: 'x' } } }],
    ['unknown TPU variant', { resources: { device: { kind: { $case: 'tpu' as const, value: { variant: 'v9-8', topology: '', count: 0 } } } } }],
    ['unknown TPU variant in a reservation entry', { reservation: { entries: [{ resources: { cpuMillicores: 1000, device: { kind: { $case: 'tpu' as const, value: { variant: 'v5litepod-3', topology: '', count: 0 } } } } }] } }],
    ['replicas > 10000', { replicas: 10_001 }],
    ['non-multiple TPU replicas', { replicas: 3, resources: { device: { kind: { $case: 'tpu' as const, value: { variant: 'v5litepod-16', topology: '', count: 0 } } } } }],
  ])('rejects %s with IRIS_INVALID_ARGUMENT and writes nothing', (_label, req) => {
    h = createStateHarness();
    const name = 'name' in req ? (req.name as string) : '/alice/bad';
    expect(() => h.launch(name, req)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(h.count('jobs')).toBe(0);
  });

  it('says "exceeds max 10000" for too many replicas', () => {
    h = createStateHarness();
    expect(() => h.launch('/alice/big', { replicas: 10_001 })).toThrow(/exceeds max 10000/);
  });

  it('turns replicas 1 into vm_count with tpu-name coscheduling for a multi-VM TPU', () => {
    h = createStateHarness();
    h.launch('/alice/tpu', { resources: { device: { kind: { $case: 'tpu', value: { variant: 'v5e-16', topology: '', count: 0 } } } } });
    const job = h.state.store.job('/alice/tpu')!;
    const req = h.state.store.request(job);
    expect(req.replicas).toBe(4);
    expect(req.coscheduling).toEqual({ groupBy: 'tpu-name', tasksPerGroup: 4 });
    expect(req.resources?.device?.kind).toMatchObject({ $case: 'tpu', value: { variant: 'v5litepod-16', count: 4 } });
    expect(req.constraints.map((c) => [c.key, c.value?.v?.value])).toEqual([
      ['device-type', 'tpu'],
      ['device-variant', 'v5litepod-16'],
    ]);
  });

  it('applies the existing-name policies', () => {
    h = createStateHarness();
    h.launch('/alice/j');
    expect(() => h.launch('/alice/j')).toThrow(expect.objectContaining({ code: 'IRIS_ALREADY_EXISTS' }));
    expect(h.launch('/alice/j', { existingJobPolicy: 2 })).toBe('/alice/j');
    expect(() => h.launch('/alice/j', { existingJobPolicy: 1 })).toThrow(expect.objectContaining({ code: 'IRIS_ALREADY_EXISTS' }));
    h.launch('/alice/j', { existingJobPolicy: 3, replicas: 2 });
    expect(h.state.store.tasksOfJob('/alice/j')).toHaveLength(2);
    h.state.terminateJob('/alice/j');
    h.launch('/alice/j', { replicas: 1 });
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_PENDING);
    expect(h.state.store.tasksOfJob('/alice/j')).toHaveLength(1);
  });

  it('merges parent constraints and lets a child replace canonical keys; children inherit env and user', () => {
    h = createStateHarness();
    const eq = (key: string, value: string) => ({ key, op: ConstraintOp.CONSTRAINT_OP_EQ, value: { v: { $case: 'stringValue' as const, value } } });
    h.launch('/alice/p', { constraints: [eq('region', 'us'), eq('pool', 'a')], environment: { envVars: { A: '1', B: '1' } } });
    h.launch('/alice/p/c', { constraints: [eq('region', 'eu')], environment: { envVars: { B: '2' } } });
    const child = h.state.store.job('/alice/p/c')!;
    const req = h.state.store.request(child);
    expect(req.constraints.map((c) => [c.key, c.value?.v?.value]).sort()).toEqual([
      ['pool', 'a'],
      ['region', 'eu'],
    ]);
    expect(req.environment?.envVars).toEqual({ A: '1', B: '2' });
    expect(child.user).toBe('alice');
    expect(child.root_submitted_at_ms).toBe(h.state.store.job('/alice/p')!.root_submitted_at_ms);
  });

  it('refuses a child of a missing or finished parent', () => {
    h = createStateHarness();
    expect(() => h.launch('/alice/none/c')).toThrow(expect.objectContaining({ code: 'IRIS_FAILED_PRECONDITION' }));
    h.launch('/alice/p');
    h.state.terminateJob('/alice/p');
    expect(() => h.launch('/alice/p/c')).toThrow(expect.objectContaining({ code: 'IRIS_FAILED_PRECONDITION' }));
  });
});

describe('ControllerState: task state machine', () => {
  it('runs 2 replicas to SUCCEEDED', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j', { replicas: 2 });
    h.tick();
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_ASSIGNED);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_RUNNING);
    h.finish('/alice/j/0', TaskState.TASK_STATE_SUCCEEDED);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_RUNNING);
    h.finish('/alice/j/1', TaskState.TASK_STATE_SUCCEEDED);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_SUCCEEDED);
  });

  it('fails the task and job on a failure with default budgets, and kills the rest', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j', { replicas: 2 });
    h.tick();
    h.finish('/alice/j/0', TaskState.TASK_STATE_FAILED, 3);
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_FAILED);
    expect(h.taskState('/alice/j/1')).toBe(TaskState.TASK_STATE_KILLED);
    const job = h.state.getJobStatus('/alice/j', false);
    expect(job).toMatchObject({ state: JobState.JOB_STATE_FAILED, exitCode: 3 });
    expect(job.error).toContain('/alice/j/0');
    // The sibling's live attempt is asked to stop with JOB_TERMINATED.
    const plan = h.plan('w1');
    expect(plan.desired.find((d) => d.taskId === '/alice/j/1')?.intent).toEqual({ $case: 'stop', value: StopReason.STOP_REASON_JOB_TERMINATED });
  });

  it('retries a failure with budget left: task PENDING, job RUNNING, next attempt id and a fresh uid', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j', { maxRetriesFailure: 1 });
    h.tick();
    const first = h.uidOf('/alice/j/0');
    h.finish('/alice/j/0', TaskState.TASK_STATE_FAILED, 1);
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_PENDING);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_RUNNING);
    h.tick();
    const task = h.state.store.task('/alice/j/0')!;
    expect(task.current_attempt_id).toBe(1);
    expect(task.failure_count).toBe(1);
    expect(h.uidOf('/alice/j/0')).not.toBe(first);
    expect(h.uidOf('/alice/j/0')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('marks task and job UNSCHEDULABLE after the scheduling timeout', () => {
    h = createStateHarness();
    h.launch('/alice/j', { schedulingTimeoutMs: 5000 });
    h.tick();
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_PENDING);
    h.advance(5001);
    h.tick();
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_UNSCHEDULABLE);
    expect(h.state.getJobStatus('/alice/j', false)).toMatchObject({ state: JobState.JOB_STATE_UNSCHEDULABLE, error: 'Scheduling timeout exceeded' });
  });

  it('terminate kills every task, including never-dispatched ones, and frees resources once kills are confirmed', () => {
    h = createStateHarness();
    h.registerWorker('w1', { cpu: 1 });
    h.launch('/alice/j', { replicas: 2 });
    h.tick();
    h.report('/alice/j/0', TaskState.TASK_STATE_RUNNING);
    h.state.terminateJob('/alice/j');
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_KILLED);
    expect(h.taskState('/alice/j/1')).toBe(TaskState.TASK_STATE_KILLED);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_KILLED);
    h.launch('/alice/k');
    h.tick();
    expect(h.taskState('/alice/k/0')).toBe(TaskState.TASK_STATE_PENDING); // the killed attempt still holds the core
    const uid = h.state.store.attempt('/alice/j/0', 0)!.attempt_uid;
    h.respond('w1', [{ attemptUid: uid, state: TaskState.TASK_STATE_KILLED }]);
    h.tick();
    expect(h.taskState('/alice/k/0')).toBe(TaskState.TASK_STATE_ASSIGNED);
  });

  it('reaping a worker: RUNNING → PENDING with preemption_count 1; ASSIGNED → PENDING free', () => {
    h = createStateHarness({ graceMs: 1000, minFailures: 2 });
    h.registerWorker('w1');
    h.launch('/alice/a');
    h.launch('/alice/b');
    h.tick();
    h.report('/alice/a/0', TaskState.TASK_STATE_RUNNING);
    expect(h.failReconcile('w1')).toBe(false);
    h.advance(2000);
    h.failReconcile('w1');
    expect(h.state.store.worker('w1')).toBeUndefined();
    expect(h.state.store.task('/alice/a/0')).toMatchObject({ state: TaskState.TASK_STATE_PENDING, preemption_count: 1, failure_count: 0 });
    expect(h.state.store.task('/alice/b/0')).toMatchObject({ state: TaskState.TASK_STATE_PENDING, preemption_count: 0 });
    h.registerWorker('w1');
    expect(h.state.store.worker('w1')).toBeDefined();
  });

  it('is reaped only after the grace period and the minimum failures; healthy=false reaps at once', () => {
    h = createStateHarness({ graceMs: 1000, minFailures: 3 });
    h.registerWorker('w1');
    h.failReconcile('w1');
    h.advance(5000);
    h.failReconcile('w1');
    expect(h.state.store.worker('w1')).toBeDefined(); // time passed, but only 2 failures
    h.failReconcile('w1');
    expect(h.state.store.worker('w1')).toBeUndefined();
    h.registerWorker('w2');
    h.respond('w2', [], false);
    expect(h.state.store.worker('w2')).toBeUndefined();
  });

  it('a new boot id fails the old live attempts and gives a fresh row', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/a');
    h.tick();
    h.report('/alice/a/0', TaskState.TASK_STATE_RUNNING);
    const before = h.state.store.worker('w1')!;
    expect(h.registerWorker('w1').reconnected).toBe(true);
    h.registerWorker('w1', { bootId: 'boot-2' });
    const after = h.state.store.worker('w1')!;
    expect(after.registration_seq).toBeGreaterThan(before.registration_seq);
    expect(h.state.store.task('/alice/a/0')).toMatchObject({ state: TaskState.TASK_STATE_PENDING, preemption_count: 1 });
  });

  it('max_task_failures = 1 tolerates the first failure and fails the job on the second', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j', { replicas: 3, maxTaskFailures: 1 });
    h.tick();
    h.finish('/alice/j/0', TaskState.TASK_STATE_FAILED, 1);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_RUNNING);
    h.finish('/alice/j/1', TaskState.TASK_STATE_FAILED, 1);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_FAILED);
    expect(h.taskState('/alice/j/2')).toBe(TaskState.TASK_STATE_KILLED);
  });

  it('worker failures never count toward max_task_failures', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j', { maxRetriesPreemption: 0 });
    h.tick();
    h.report('/alice/j/0', TaskState.TASK_STATE_RUNNING);
    h.report('/alice/j/0', TaskState.TASK_STATE_MISSING);
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_WORKER_FAILED);
    expect(h.state.store.task('/alice/j/0')!.failure_count).toBe(0);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_WORKER_FAILED);
  });

  it('MISSING ends the attempt WORKER_FAILED worker_lost_spec; the next tick mints a new uid', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j');
    h.tick();
    const uid = h.uidOf('/alice/j/0');
    h.report('/alice/j/0', TaskState.TASK_STATE_MISSING);
    expect(h.state.store.attemptByUid(uid)).toMatchObject({ state: TaskState.TASK_STATE_WORKER_FAILED, error: 'worker_lost_spec' });
    expect(h.state.store.task('/alice/j/0')).toMatchObject({ state: TaskState.TASK_STATE_PENDING, preemption_count: 0 });
    h.tick();
    expect(h.uidOf('/alice/j/0')).not.toBe(uid);
  });

  it('ignores a reported PENDING after RUNNING and never reopens a cancelled task', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j');
    h.tick();
    h.report('/alice/j/0', TaskState.TASK_STATE_RUNNING);
    h.report('/alice/j/0', TaskState.TASK_STATE_PENDING);
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_RUNNING);
    h.state.terminateJob('/alice/j');
    h.report('/alice/j/0', TaskState.TASK_STATE_SUCCEEDED);
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_KILLED);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_KILLED);
  });

  it('stops an attempt past timeout_ms with TASK_TIMEOUT and counts a failure', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j', { timeoutMs: 1000 });
    h.tick();
    h.report('/alice/j/0', TaskState.TASK_STATE_RUNNING, { startedAtMs: h.now });
    h.advance(1500);
    h.tick();
    expect(h.state.store.task('/alice/j/0')).toMatchObject({ state: TaskState.TASK_STATE_FAILED, failure_count: 1 });
    expect(h.plan('w1').desired[0]?.intent).toEqual({ $case: 'stop', value: StopReason.STOP_REASON_TASK_TIMEOUT });
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_FAILED);
  });

  it('after a dropped response the next tick converges to the same state', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j');
    h.tick();
    h.failReconcile('w1');
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_ASSIGNED);
    const desired = h.plan('w1').desired;
    expect(desired).toHaveLength(1);
    expect(desired[0]?.intent?.$case).toBe('run');
    h.finish('/alice/j/0', TaskState.TASK_STATE_SUCCEEDED);
    expect(h.jobState('/alice/j')).toBe(JobState.JOB_STATE_SUCCEEDED);
  });

  it('ignores a stale report for a non-current attempt and logs the precondition error', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/j', { maxRetriesFailure: 2 });
    h.tick();
    const old = h.state.store.attempt('/alice/j/0', 0)!;
    // Attempt 0 is superseded by a timeout-style stop while the task already has attempt 1.
    h.finish('/alice/j/0', TaskState.TASK_STATE_FAILED, 1);
    h.tick();
    const plan = h.plan('w1');
    h.state.applyReconcileResult(
      { ...plan, planned: new Set([...plan.planned, old.attempt_uid]) },
      { response: { workerId: 'w1', observed: [{ attemptUid: old.attempt_uid, state: TaskState.TASK_STATE_RUNNING, exitCode: 0, error: '', startedAtMs: 0, finishedAtMs: 0, ports: {} }], workerTimeMs: 0 } },
    );
    expect(h.warnings.some((w) => w.includes('stale attempt precondition violation'))).toBe(true);
    expect(h.state.store.attempt('/alice/j/0', 0)!.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(h.state.store.task('/alice/j/0')!.current_attempt_id).toBe(1);
    expect(h.taskState('/alice/j/0')).toBe(TaskState.TASK_STATE_ASSIGNED);
  });
});

describe('ControllerState: restart recovery', () => {
  it('after a restart no worker is reaped for the downtime: liveness clocks start afresh', () => {
    h = createStateHarness({ graceMs: 1000, minFailures: 2 });
    h.registerWorker('w1');
    h.failReconcile('w1');
    h.advance(60_000); // the controller was down for a minute
    h.state.resetLiveness();
    h.failReconcile('w1');
    expect(h.state.store.worker('w1')).toBeDefined();
    h.advance(1500);
    h.failReconcile('w1');
    expect(h.state.store.worker('w1')).toBeUndefined();
  });

  it('a dispatch lost in a restart comes back MISSING and is retried for free with a new uid', () => {
    h = createStateHarness();
    h.registerWorker('w1');
    h.launch('/alice/lost');
    h.tick();
    const uid = h.uidOf('/alice/lost/0');
    h.state.resetLiveness();
    h.report('/alice/lost/0', TaskState.TASK_STATE_MISSING);
    expect(h.state.store.task('/alice/lost/0')).toMatchObject({ state: TaskState.TASK_STATE_PENDING, preemption_count: 0, failure_count: 0 });
    h.tick();
    expect(h.taskState('/alice/lost/0')).toBe(TaskState.TASK_STATE_ASSIGNED);
    expect(h.uidOf('/alice/lost/0')).not.toBe(uid);
  });
});

describe('ControllerState: listing', () => {
  it('filters jobs by prefix, state and roots only, and pages in submission order', () => {
    h = createStateHarness();
    for (let i = 0; i < 5; i++) h.launch(`/alice/j${i}`);
    h.launch('/alice/j0/child');
    h.launch('/bob/x');
    h.state.terminateJob('/alice/j1', false);
    const list = (q: Partial<Parameters<typeof h.state.listJobs>[0]>) => h.state.listJobs({ prefix: '', states: [], rootsOnly: false, offset: 0, limit: 0, ...q });
    expect(list({}).totalCount).toBe(7);
    expect(list({ prefix: '/alice/' }).jobs.map((j) => j.jobId)).toEqual(['/alice/j0', '/alice/j1', '/alice/j2', '/alice/j3', '/alice/j4', '/alice/j0/child']);
    expect(list({ prefix: '/alice/', rootsOnly: true }).totalCount).toBe(5);
    expect(list({ states: [JobState.JOB_STATE_KILLED] }).jobs.map((j) => j.jobId)).toEqual(['/alice/j1']);
    const page = list({ prefix: '/alice/', offset: 2, limit: 2 });
    expect(page).toMatchObject({ totalCount: 6, hasMore: true });
    expect(page.jobs.map((j) => j.jobId)).toEqual(['/alice/j2', '/alice/j3']);
    expect(() => list({ offset: -1 })).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});
