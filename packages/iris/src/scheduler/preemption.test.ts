import { describe, expect, it } from 'vitest';
import { GIB, job, tasks, tpuSlice, worker } from '../../test/helpers/scheduler-fixtures.js';
import type { PriorityBand } from './priority-band.js';
import { scheduleTick } from './schedule-tick.js';
import type { ResourceAmounts, RunningTask, SchedulerJob, SchedulerWorker, SchedulingResult } from './types.js';

const cores = (n: number, memoryGiB = 1): ResourceAmounts => ({ cpuMillicores: n * 1000, memoryBytes: memoryGiB * GIB, gpuCount: 0, tpuChips: 0 });

function running(taskId: string, workerId: string, band: PriorityBand, f: Partial<RunningTask> = {}): RunningTask {
  return { taskId, jobId: taskId.slice(0, taskId.lastIndexOf('/')), workerId, band, resources: cores(4), deviceKey: 'cpu', coscheduled: false, ...f };
}

/** A worker whose capacity is fully held by `held` (as derived from its live attempts). */
function busy(workerId: string, held: ResourceAmounts, f: { tpuChips?: number; attributes?: Record<string, string | number> } = {}): SchedulerWorker {
  return { ...worker(workerId, { cores: 4, memoryGiB: 4, ...(f.attributes ? { attributes: f.attributes } : {}) }), committed: held };
}

function pass(workers: SchedulerWorker[], jobs: SchedulerJob[], run: RunningTask[], count = 1): SchedulingResult {
  return scheduleTick({ nowMs: 10_000, workers, jobs, tasks: jobs.flatMap((j) => tasks(j, count)), running: run });
}

const cpuJob = (id: string, band: PriorityBand, n = 4): SchedulerJob => ({ ...job(id, { cores: n }), band, deviceKey: 'cpu' });

describe('preemption: who may preempt whom', () => {
  it.each<[PriorityBand, PriorityBand, boolean]>([
    ['PRODUCTION', 'BATCH', true],
    ['PRODUCTION', 'INTERACTIVE', true],
    ['INTERACTIVE', 'BATCH', true],
    ['INTERACTIVE', 'PRODUCTION', false],
    ['BATCH', 'BATCH', false],
    ['BATCH', 'INTERACTIVE', false],
    ['PRODUCTION', 'PRODUCTION', false],
    ['INTERACTIVE', 'INTERACTIVE', false],
  ])('%s preempting %s: %s', (preemptor, victim, expected) => {
    const r = pass([busy('w', cores(4))], [cpuJob('/p/j', preemptor)], [running('/v/j/0', 'w', victim)]);
    expect(r.preemptions).toEqual(expected ? [{ victimTaskId: '/v/j/0', victimJobId: '/v/j', preemptorJobId: '/p/j' }] : []);
  });
});

describe('preemption: victims', () => {
  it('never preempts while free capacity would do', () => {
    const r = pass([busy('w0', cores(4)), worker('w1', { cores: 4, memoryGiB: 4 })], [cpuJob('/p/j', 'PRODUCTION')], [running('/v/j/0', 'w0', 'BATCH')]);
    expect(r.assignments.map((a) => a.workerId)).toEqual(['w1']);
    expect(r.preemptions).toEqual([]);
  });

  it('waits for capacity already being released instead of taking a second victim', () => {
    const r = pass(
      [busy('w0', cores(4)), busy('w1', cores(4))],
      [cpuJob('/p/j', 'PRODUCTION')],
      [running('/old/j/0', 'w0', 'BATCH', { stopping: true }), running('/v/j/0', 'w1', 'BATCH')],
    );
    expect(r.preemptions).toEqual([]);
  });

  it('takes the worst band first, then the cheapest victim', () => {
    const held = { cpuMillicores: 4000, memoryBytes: 4 * GIB, gpuCount: 0, tpuChips: 0 };
    const workers = [busy('w0', held), busy('w1', held), busy('w2', held)];
    const run = [
      running('/int/a/0', 'w0', 'INTERACTIVE', { resources: cores(4, 1) }),
      running('/batch/big/0', 'w1', 'BATCH', { resources: cores(4, 4) }),
      running('/batch/small/0', 'w2', 'BATCH', { resources: cores(4, 1) }),
    ];
    const r = pass(workers, [cpuJob('/p/j', 'PRODUCTION')], run);
    expect(r.preemptions.map((p) => p.victimTaskId)).toEqual(['/batch/small/0']);
  });

  it('takes each victim at most once per pass', () => {
    const r = pass([busy('w', cores(4))], [cpuJob('/p/a', 'PRODUCTION'), cpuJob('/p/b', 'PRODUCTION')], [running('/v/j/0', 'w', 'BATCH')]);
    expect(r.preemptions).toHaveLength(1);
  });

  it('only evicts a victim whose room makes the preemptor fit, on a worker meeting its constraints', () => {
    const workers = [busy('eu', cores(4), { attributes: { region: 'eu' } }), busy('us', cores(4), { attributes: { region: 'us' } })];
    const run = [running('/v/eu/0', 'eu', 'BATCH', { resources: cores(1) }), running('/v/us/0', 'us', 'BATCH')];
    const j: SchedulerJob = { ...cpuJob('/p/j', 'PRODUCTION'), constraints: [{ key: 'region', op: 'EQ', value: 'us' }] };
    expect(pass(workers, [j], run).preemptions.map((p) => p.victimTaskId)).toEqual(['/v/us/0']);
    const tooSmall = pass([busy('w', cores(4))], [cpuJob('/p/j', 'PRODUCTION')], [running('/v/j/0', 'w', 'BATCH', { resources: cores(1) })]);
    expect(tooSmall.preemptions).toEqual([]);
  });

  it('only evicts tasks of the same device class', () => {
    const r = pass([busy('w', cores(4))], [cpuJob('/p/j', 'PRODUCTION')], [running('/v/j/0', 'w', 'BATCH', { deviceKey: 'gpu:h100' })]);
    expect(r.preemptions).toEqual([]);
  });

  it('never lets a solo task break a gang slice', () => {
    const r = pass([busy('w', cores(4))], [cpuJob('/p/j', 'PRODUCTION')], [running('/v/gang/0', 'w', 'BATCH', { coscheduled: true })]);
    expect(r.preemptions).toEqual([]);
  });
});

describe('preemption: coscheduled preemptors', () => {
  const chips = { cpuMillicores: 0, memoryBytes: 0, gpuCount: 0, tpuChips: 4 };
  const fullSlice = (name: string) => tpuSlice(name, 'v5litepod-16', { cores: 8 }).map((w) => ({ ...w, committed: chips }));
  const gangJob = (id: string, band: PriorityBand): SchedulerJob => ({
    ...job(id, { cores: 0, memoryGiB: 0, tpuChips: 4, coscheduling: { groupBy: 'tpu-name', tasksPerGroup: 4 }, taskCount: 4 }),
    constraints: [{ key: 'device-variant', op: 'EQ', value: 'v5litepod-16' }],
    band,
    deviceKey: 'tpu:v5litepod-16',
  });
  const sliceTasks = (jobId: string, slice: string, band: PriorityBand): RunningTask[] =>
    [0, 1, 2, 3].map((i) => running(`${jobId}/${i}`, `${slice}-w${i}`, band, { resources: chips, deviceKey: 'tpu:v5litepod-16', coscheduled: true }));

  it('evicts one whole lower-band slice of the same variant, the cheapest band first', () => {
    const workers = [...fullSlice('a'), ...fullSlice('b')];
    const run = [...sliceTasks('/int/g', 'a', 'INTERACTIVE'), ...sliceTasks('/batch/g', 'b', 'BATCH')];
    const r = pass(workers, [gangJob('/prod/g', 'PRODUCTION')], run, 4);
    expect(r.assignments).toEqual([]);
    expect(r.preemptions.map((p) => p.victimTaskId).sort()).toEqual(['/batch/g/0', '/batch/g/1', '/batch/g/2', '/batch/g/3']);
    expect(new Set(r.preemptions.map((p) => p.preemptorJobId))).toEqual(new Set(['/prod/g']));
  });

  it('does not evict a slice with fewer members than it needs, nor a same-band one', () => {
    const workers = fullSlice('a');
    const partial = sliceTasks('/batch/g', 'a', 'BATCH').slice(0, 2);
    const others = [2, 3].map((i) => running(`/solo/${i}/0`, `a-w${i}`, 'BATCH', { resources: chips, deviceKey: 'tpu:v5litepod-16' }));
    expect(pass(workers, [gangJob('/prod/g', 'PRODUCTION')], [...partial, ...others], 4).preemptions).toEqual([]);
    expect(pass(workers, [gangJob('/prod/g', 'PRODUCTION')], sliceTasks('/prod/other', 'a', 'PRODUCTION'), 4).preemptions).toEqual([]);
  });

  it('evicts nothing when it could not free every slice it needs', () => {
    const j = { ...gangJob('/prod/g', 'PRODUCTION'), taskCount: 8 };
    const r = pass(fullSlice('a'), [j], sliceTasks('/batch/g', 'a', 'BATCH'), 8);
    expect(r.preemptions).toEqual([]);
  });
});
