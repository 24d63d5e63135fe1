import { describe, expect, it } from 'vitest';
import { GIB, job, tasks, worker } from '../../test/helpers/scheduler-fixtures.js';
import { RESERVATION_ATTRIBUTE } from './job-candidates.js';
import { claimReservations } from './reservation-claims.js';
import { scheduleTick } from './schedule-tick.js';

const need = (cores: number) => ({ cpuMillicores: cores * 1000, memoryBytes: GIB, gpuCount: 0, tpuChips: 0 });

describe('claimReservations()', () => {
  it('claims one distinct worker per entry that meets its constraints and is big enough when idle', () => {
    const workers = [
      worker('small', { cores: 2 }),
      worker('eu', { cores: 8, attributes: { region: 'eu' }, committed: { cpuMillicores: 8000 } }),
      worker('us', { cores: 8, attributes: { region: 'us' } }),
    ];
    const claims = claimReservations(workers, [
      { holderTaskId: '/u/j/:reservation:/0', reservationJobId: '/u/j', resources: need(4), constraints: [] },
      { holderTaskId: '/u/j/:reservation:/1', reservationJobId: '/u/j', resources: need(4), constraints: [] },
      { holderTaskId: '/u/j/:reservation:/2', reservationJobId: '/u/j', resources: need(4), constraints: [{ key: 'region', op: 'EQ', value: 'us' }] },
    ]);
    expect(claims.map((c) => c.workerId)).toEqual(['eu', 'us']);
  });

  it('never claims a worker another reservation holds', () => {
    const workers = [worker('w', { attributes: { [RESERVATION_ATTRIBUTE]: '/other/j' } })];
    expect(claimReservations(workers, [{ holderTaskId: 'h/0', reservationJobId: '/u/j', resources: need(1), constraints: [] }])).toEqual([]);
  });
});

describe('reserved workers in placement', () => {
  it('are closed to other jobs and preferred by the reserving job and its children', () => {
    const workers = [worker('free', { cores: 1 }), worker('held', { cores: 1, attributes: { [RESERVATION_ATTRIBUTE]: '/u/r' } })];
    const other = job('/v/other');
    const mine = { ...job('/u/r/child'), reservationScope: '/u/r' };
    const r1 = scheduleTick({ nowMs: 0, workers, jobs: [other], tasks: tasks(other, 2) });
    expect(r1.assignments.map((a) => a.workerId)).toEqual(['free']);
    const r2 = scheduleTick({ nowMs: 0, workers, jobs: [mine], tasks: tasks(mine, 1) });
    expect(r2.assignments.map((a) => a.workerId)).toEqual(['held']);
  });

  it('does not place a job that is still waiting for its claims, and says why', () => {
    const waiting = { ...job('/u/r'), blockedReason: 'waiting for reservation: 1 of 2 workers claimed' };
    const r = scheduleTick({ nowMs: 0, workers: [worker('w')], jobs: [waiting], tasks: tasks(waiting, 1) });
    expect(r.assignments).toEqual([]);
    expect(r.pendingJobs).toEqual([{ jobId: '/u/r', taskId: '/u/r/0', reason: 'waiting for reservation: 1 of 2 workers claimed', canBeScheduled: true }]);
  });
});
