import { afterEach, describe, expect, it } from 'vitest';
import { PriorityBand, StopReason, TaskState as S } from '../gen/iris/v1/types.js';
import { createStateHarness } from '../../test/helpers/controller-harness.js';
import { committedByWorker } from './scheduling.js';

type Harness = ReturnType<typeof createStateHarness>;
let h: Harness;
afterEach(() => h?.close());

const P = PriorityBand;
const cpu4 = { cpuMillicores: 4000, memoryBytes: 2 ** 30 };

/** One 4-core worker running a BATCH job's task (RUNNING on the worker). */
function fullOfBatch(extra: Parameters<Harness['launch']>[1] = {}): Harness {
  h = createStateHarness();
  h.registerWorker('w', { cpu: 4 });
  h.launch('/bob/batch', { resources: cpu4, priorityBand: P.PRIORITY_BAND_BATCH, ...extra });
  h.tick();
  h.report('/bob/batch/0', S.TASK_STATE_RUNNING);
  return h;
}

describe('ControllerState: priority bands', () => {
  it('children inherit their parent band; UNSPECIFIED roots are INTERACTIVE', () => {
    h = createStateHarness();
    h.launch('/a/p', { priorityBand: P.PRIORITY_BAND_PRODUCTION });
    h.launch('/a/p/c');
    h.launch('/a/p/d', { priorityBand: P.PRIORITY_BAND_INHERIT });
    h.launch('/a/r');
    const band = (id: string) => h.state.getJobStatus(id, false).priorityBand;
    expect([band('/a/p/c'), band('/a/p/d'), band('/a/r')]).toEqual([P.PRIORITY_BAND_PRODUCTION, P.PRIORITY_BAND_PRODUCTION, P.PRIORITY_BAND_INTERACTIVE]);
  });

  it('stamps the band on the attempt at assignment', () => {
    h = createStateHarness();
    h.registerWorker('w');
    h.launch('/a/j', { priorityBand: P.PRIORITY_BAND_PRODUCTION });
    h.tick();
    expect(h.state.getTaskStatus('/a/j/0').priorityBand).toBe(P.PRIORITY_BAND_PRODUCTION);
  });
});

describe('ControllerState: preemption', () => {
  it('a PRODUCTION job preempts a running BATCH task, which retries with "Preempted by <job>", and runs once the kill is confirmed', () => {
    fullOfBatch();
    h.launch('/alice/prod', { resources: cpu4, priorityBand: P.PRIORITY_BAND_PRODUCTION });
    const r = h.tick();
    expect(r.preemptions).toEqual([{ victimTaskId: '/bob/batch/0', victimJobId: '/bob/batch', preemptorJobId: '/alice/prod' }]);
    const victim = h.state.store.task('/bob/batch/0')!;
    expect(victim).toMatchObject({ state: S.TASK_STATE_PENDING, preemption_count: 1, error: 'Preempted by /alice/prod' });
    expect(h.state.store.attempt('/bob/batch/0', 0)!.stop_reason).toBe(StopReason.STOP_REASON_PREEMPTED);
    expect(h.plan('w').desired.find((d) => d.taskId === '/bob/batch/0')?.intent).toEqual({ $case: 'stop', value: StopReason.STOP_REASON_PREEMPTED });

    // While the victim's process is still being stopped nothing more is preempted or placed.
    expect(h.tick()).toMatchObject({ assignments: [], preemptions: [] });
    h.respond('w', [{ attemptUid: h.state.store.attempt('/bob/batch/0', 0)!.attempt_uid, state: S.TASK_STATE_KILLED }]);
    expect(h.tick().assignments.map((a) => a.taskId)).toEqual(['/alice/prod/0']);
    h.finish('/alice/prod/0', S.TASK_STATE_SUCCEEDED);
    expect(h.tick().assignments.map((a) => a.taskId)).toEqual(['/bob/batch/0']);
  });

  it('a victim beyond its preemption budget ends PREEMPTED', () => {
    fullOfBatch({ maxRetriesPreemption: 0 });
    h.launch('/alice/prod', { resources: cpu4, priorityBand: P.PRIORITY_BAND_PRODUCTION });
    h.tick();
    expect(h.state.store.task('/bob/batch/0')).toMatchObject({ state: S.TASK_STATE_PREEMPTED, error: 'Preempted by /alice/prod' });
  });

  it('a victim still ASSIGNED returns to PENDING free', () => {
    h = createStateHarness();
    h.registerWorker('w', { cpu: 4 });
    h.launch('/bob/batch', { resources: cpu4, priorityBand: P.PRIORITY_BAND_BATCH });
    h.tick();
    h.launch('/alice/prod', { resources: cpu4, priorityBand: P.PRIORITY_BAND_PRODUCTION });
    h.tick();
    expect(h.state.store.task('/bob/batch/0')).toMatchObject({ state: S.TASK_STATE_PENDING, preemption_count: 0 });
  });

  it('INTERACTIVE does not preempt INTERACTIVE or PRODUCTION, and BATCH preempts nothing', () => {
    for (const [victim, preemptor] of [
      [P.PRIORITY_BAND_INTERACTIVE, P.PRIORITY_BAND_INTERACTIVE],
      [P.PRIORITY_BAND_PRODUCTION, P.PRIORITY_BAND_INTERACTIVE],
      [P.PRIORITY_BAND_BATCH, P.PRIORITY_BAND_BATCH],
    ] as const) {
      h = createStateHarness();
      h.registerWorker('w', { cpu: 4 });
      h.launch('/bob/v', { resources: cpu4, priorityBand: victim });
      h.tick();
      h.report('/bob/v/0', S.TASK_STATE_RUNNING);
      h.launch('/alice/p', { resources: cpu4, priorityBand: preemptor });
      expect(h.tick().preemptions).toEqual([]);
      h.close();
    }
  });
});

describe('ControllerState: user budgets', () => {
  it('stores budgets and reports spend over live non-BATCH tasks', () => {
    h = createStateHarness();
    h.registerWorker('w', { cpu: 8 });
    h.launch('/alice/i', { resources: { cpuMillicores: 2000, memoryBytes: 3 * 2 ** 30 } });
    h.launch('/alice/b', { resources: { cpuMillicores: 2000, memoryBytes: 3 * 2 ** 30 }, priorityBand: P.PRIORITY_BAND_BATCH });
    h.tick();
    expect(h.state.setUserBudget({ user: 'alice', budgetLimit: 5, maxBand: P.PRIORITY_BAND_INTERACTIVE })).toMatchObject({ budgetLimit: 5, maxBand: P.PRIORITY_BAND_INTERACTIVE, spend: 13 });
    expect(h.state.listUserBudgets().map((b) => [b.user, b.spend])).toEqual([['alice', 13]]);
    expect(() => h.state.setUserBudget({ user: 'alice', budgetLimit: -1, maxBand: 0 })).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });

  it('schedules an over-budget user\'s INTERACTIVE work as BATCH, where it becomes a victim; PRODUCTION is not downgraded', () => {
    h = createStateHarness();
    h.registerWorker('w', { cpu: 4 });
    h.state.setUserBudget({ user: 'bob', budgetLimit: 1, maxBand: 0 });
    h.launch('/bob/i', { resources: cpu4 });
    h.tick();
    h.report('/bob/i/0', S.TASK_STATE_RUNNING);
    expect(h.state.getJobStatus('/bob/i', false)).toMatchObject({ priorityBand: P.PRIORITY_BAND_INTERACTIVE, effectivePriorityBand: P.PRIORITY_BAND_BATCH });
    h.launch('/bob/p', { resources: cpu4, priorityBand: P.PRIORITY_BAND_PRODUCTION });
    expect(h.state.getJobStatus('/bob/p', false).effectivePriorityBand).toBe(P.PRIORITY_BAND_PRODUCTION);
    h.state.terminateJob('/bob/p');
    h.launch('/alice/i', { resources: cpu4 });
    expect(h.tick().preemptions).toEqual([{ victimTaskId: '/bob/i/0', victimJobId: '/bob/i', preemptorJobId: '/alice/i' }]);
  });

  it('caps a request at the user\'s max_band', () => {
    h = createStateHarness();
    h.state.setUserBudget({ user: 'carol', budgetLimit: 0, maxBand: P.PRIORITY_BAND_BATCH });
    h.launch('/carol/p', { priorityBand: P.PRIORITY_BAND_PRODUCTION });
    expect(h.state.getJobStatus('/carol/p', false).effectivePriorityBand).toBe(P.PRIORITY_BAND_BATCH);
  });
});

describe('ControllerState: reservations', () => {
  const entry = { resources: { cpuMillicores: 2000, memoryBytes: 2 ** 30 } };

  it('holders claim workers without consuming or building; the job waits for every claim; others stay off claimed workers', () => {
    h = createStateHarness();
    h.registerWorker('w1', { cpu: 4 });
    h.launch('/alice/r', { reservation: { entries: [entry, entry] } });
    h.tick();
    const holder = h.state.store.tasksOfJob('/alice/r/:reservation:');
    expect(holder.map((t) => t.state)).toEqual([S.TASK_STATE_RUNNING, S.TASK_STATE_PENDING]);
    expect(h.count('attempts')).toBe(0);
    expect(committedByWorker(h.state.store).size).toBe(0);
    expect(h.state.getJobStatus('/alice/r', false).pendingReason).toBe('waiting for reservation: 1 of 2 workers claimed');

    h.launch('/bob/other');
    expect(h.tick().assignments).toEqual([]);
    expect(h.state.getJobStatus('/bob/other', false).pendingReason).toContain('reservation-job');

    h.registerWorker('w2', { cpu: 4 });
    expect(h.tick().assignments.map((a) => a.taskId)).toEqual(['/alice/r/0']);
    h.finish('/alice/r/0', S.TASK_STATE_SUCCEEDED);
    expect(h.state.store.tasksOfJob('/alice/r/:reservation:').map((t) => t.state)).toEqual([S.TASK_STATE_KILLED, S.TASK_STATE_KILLED]);
    expect(h.tick().assignments.map((a) => a.taskId)).toEqual(['/bob/other/0']);
    expect(h.state.store.claims()).toEqual([]);
  });

  it('a claim on a reaped worker is released and claimed again elsewhere', () => {
    h = createStateHarness({ graceMs: 0, minFailures: 1 });
    h.registerWorker('w1');
    h.launch('/alice/r', { reservation: { entries: [entry] } });
    h.tick();
    h.registerWorker('w2');
    h.failReconcile('w1');
    h.tick();
    expect(h.state.store.claims().map((c) => c.worker_id)).toEqual(['w2']);
  });
});
