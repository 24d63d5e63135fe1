/**
 * Placement benchmark: one scheduling tick over 10,000 pending tasks and 1,000 workers with
 * constraints, taints, PREFERRED ranking and TPU gangs, then the same with priority bands, users
 * with spend and the preemption pass over the live tasks. Prints figures; asserts nothing.
 *
 * Run alone: `node --conditions=@marin/source --import tsx bench/placement.bench.ts`
 *
 * Against another version of the scheduler (a checkout of an earlier commit, e.g. made with
 * `git worktree add <dir> <rev>`): `… bench/placement.bench.ts --against <dir>/packages/iris`
 * alternates the two in one process, tick by tick, and prints the CPU time of each, which other
 * load on the machine disturbs far less than wall time, and whether their results are equal as JSON.
 */
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { scheduleTick } from '../src/scheduler/schedule-tick.js';
import type { PriorityBand } from '../src/scheduler/priority-band.js';
import type { Constraint, RunningTask, SchedulerJob, SchedulerTask, SchedulerWorker, SchedulingInput } from '../src/scheduler/types.js';

/** Knobs of the placement benchmark. */
export interface PlacementBenchOptions {
  /** @default 1000 */
  workers?: number;
  /** @default 10000 */
  pendingTasks?: number;
  /** Timed ticks after one warm-up. @default 20 */
  iterations?: number;
  /**
   * Priority bands and preemption: jobs spread over three bands and 20 users with spend, and the
   * workers' committed capacity held by live tasks (mostly BATCH) that preemption may evict.
   * @default false
   */
  bands?: boolean;
}

/** What the placement benchmark measured. */
export interface PlacementBenchResult {
  readonly name: string;
  readonly workers: number;
  readonly pendingTasks: number;
  readonly assignments: number;
  readonly pendingJobs: number;
  /** Victims chosen by the preemption pass (0 without bands). */
  readonly preemptions: number;
  /** Live tasks offered to preemption. */
  readonly running: number;
  readonly iterations: number;
  readonly coldMs: number;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly minMs: number;
  /** Median CPU time (user + system) per tick; steadier than wall time on a shared machine. */
  readonly medianCpuMs: number;
}

const GIB = 2 ** 30;
const REGIONS = ['us-east1', 'us-west4', 'europe-west4', 'us-central2'];

const BANDS: readonly PriorityBand[] = ['PRODUCTION', 'INTERACTIVE', 'BATCH'];

/** The generated snapshot the benchmark times (exported so other code versions can be compared on it). */
export function buildInput(workerCount: number, taskCount: number, bands: boolean): SchedulingInput {
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const workers: SchedulerWorker[] = [];
  const sliceWorkers = Math.floor(workerCount / 10 / 4) * 4;
  for (let i = 0; i < sliceWorkers; i++) {
    const slice = Math.floor(i / 4);
    workers.push({
      workerId: `tpu-${slice}-${i % 4}`,
      healthy: true,
      attributes: {
        'device-type': 'tpu',
        'device-variant': 'v5litepod-16',
        'tpu-name': `slice-${slice}`,
        'tpu-worker-id': i % 4,
        'tpu-vm-count': 4,
        region: REGIONS[slice % REGIONS.length] ?? 'us-east1',
        preemptible: 'false',
      },
      capacity: { cpuMillicores: 32_000, memoryBytes: 128 * GIB, gpuCount: 0, tpuChips: 4 },
      committed: { cpuMillicores: 0, memoryBytes: 0, gpuCount: 0, tpuChips: slice % 3 === 0 ? 4 : 0 },
      buildingCount: 0,
    });
  }
  for (let i = workers.length; i < workerCount; i++) {
    workers.push({
      workerId: `cpu-${i}`,
      healthy: rand(50) !== 0,
      attributes: {
        'device-type': 'cpu',
        region: REGIONS[rand(REGIONS.length)] ?? 'us-east1',
        zone: `z${rand(3)}`,
        preemptible: rand(2) === 0 ? 'true' : 'false',
        generation: rand(4),
        ...(rand(25) === 0 ? { 'taint:maintenance': 'true' } : {}),
      },
      capacity: { cpuMillicores: 16_000, memoryBytes: 64 * GIB, gpuCount: 0, tpuChips: 0 },
      committed: { cpuMillicores: rand(4) * 2000, memoryBytes: rand(4) * 8 * GIB, gpuCount: 0, tpuChips: 0 },
      buildingCount: rand(3),
    });
  }

  const shapes: Array<() => Constraint[]> = [
    () => [],
    () => [{ key: 'region', op: 'EQ', value: REGIONS[rand(REGIONS.length)] ?? 'us-east1' }],
    () => [{ key: 'preemptible', op: 'EQ', value: 'false' }],
    () => [
      { key: 'region', op: 'IN', values: ['us-east1', 'us-west4'] },
      { key: 'generation', op: 'GE', value: 2 },
    ],
    () => [{ key: 'zone', op: 'NE', value: 'z0' }, { key: 'region', op: 'EQ', value: 'europe-west4', mode: 'PREFERRED' }],
    () => [{ key: 'device-type', op: 'EQ', value: 'cpu' }, { key: 'taint:maintenance', op: 'EXISTS' }],
  ];
  const jobs: SchedulerJob[] = [];
  const tasks: SchedulerTask[] = [];
  let seq = 0;
  const addJob = (job: Omit<SchedulerJob, 'insertionSeq'>, count: number): void => {
    seq += 1;
    const banded: Partial<SchedulerJob> = bands
      ? { band: BANDS[rand(3)] ?? 'BATCH', user: `user-${rand(20)}`, deviceKey: job.coscheduling === null ? 'cpu' : 'tpu:v5litepod-16' }
      : {};
    jobs.push({ ...job, ...banded, insertionSeq: seq });
    for (let t = 0; t < count; t++) tasks.push({ taskId: `${job.jobId}/${t}`, jobId: job.jobId, taskIndex: t, state: 'PENDING' });
  };
  // A few TPU gangs (4 VMs each), then CPU jobs of 1–10 tasks until the task budget is spent.
  for (let g = 0; g < 30 && tasks.length + 4 <= taskCount; g++) {
    addJob(
      {
        jobId: `/bench/gang-${g}`,
        depth: 1,
        rootSubmittedAtMs: 1000 + g,
        submittedAtMs: 1000 + g,
        resources: { cpuMillicores: 8000, memoryBytes: 32 * GIB, gpuCount: 0, tpuChips: 4 },
        constraints: [
          { key: 'device-type', op: 'EQ', value: 'tpu' },
          { key: 'device-variant', op: 'EQ', value: 'v5litepod-16' },
        ],
        coscheduling: { groupBy: 'tpu-name', tasksPerGroup: 4 },
      },
      4,
    );
  }
  let j = 0;
  while (tasks.length < taskCount) {
    const count = Math.min(1 + rand(10), taskCount - tasks.length);
    const depth = 1 + rand(2);
    addJob(
      {
        jobId: depth === 1 ? `/bench/job-${j}` : `/bench/root-${j % 50}/job-${j}`,
        depth,
        rootSubmittedAtMs: 2000 + rand(500),
        submittedAtMs: 2000 + j,
        resources: { cpuMillicores: 500 * (1 + rand(8)), memoryBytes: (1 + rand(16)) * GIB, gpuCount: 0, tpuChips: 0 },
        constraints: shapes[rand(shapes.length)]?.() ?? [],
        coscheduling: null,
      },
      count,
    );
    j += 1;
  }
  if (!bands) return { nowMs: 10_000, workers, jobs, tasks };
  // The worst case for preemption: every CPU worker is full with four live 4-core tasks (2 in 3
  // BATCH) and every third slice runs a BATCH gang, so placement finds little room and thousands of
  // unplaced PRODUCTION and INTERACTIVE tasks look for victims among thousands of live tasks.
  const running: RunningTask[] = [];
  const quarter = { cpuMillicores: 4000, memoryBytes: 16 * GIB, gpuCount: 0, tpuChips: 0 };
  workers.forEach((w, i) => {
    const tpu = w.capacity.tpuChips > 0;
    if (tpu) {
      if (w.committed.tpuChips === 0) return;
      const slice = String(w.attributes['tpu-name']);
      running.push({
        taskId: `/run/${slice}/${w.attributes['tpu-worker-id']}`,
        jobId: `/run/${slice}`,
        workerId: w.workerId,
        band: 'BATCH',
        resources: w.committed,
        deviceKey: 'tpu:v5litepod-16',
        coscheduled: true,
      });
      return;
    }
    workers[i] = { ...w, committed: w.capacity };
    for (let t = 0; t < 4; t++) {
      running.push({
        taskId: `/run/${w.workerId}-${t}/0`,
        jobId: `/run/${w.workerId}-${t}`,
        workerId: w.workerId,
        band: rand(3) === 0 ? 'INTERACTIVE' : 'BATCH',
        resources: quarter,
        deviceKey: 'cpu',
        coscheduled: false,
      });
    }
  });
  const userSpend = new Map<string, number>();
  for (let u = 0; u < 20; u++) userSpend.set(`user-${u}`, rand(100_000));
  return { nowMs: 10_000, workers, jobs, tasks, running, userSpend };
}

/**
 * Times `scheduleTick` on a generated snapshot (default: 10,000 pending tasks on 1,000 workers).
 * Each timed tick sees the same input, as the controller's tick would if nothing changed.
 */
export function runPlacementBench(options: PlacementBenchOptions = {}): PlacementBenchResult {
  const workers = options.workers ?? 1000;
  const pendingTasks = options.pendingTasks ?? 10_000;
  const iterations = options.iterations ?? 20;
  const bands = options.bands ?? false;
  const input = buildInput(workers, pendingTasks, bands);
  let start = performance.now();
  const first = scheduleTick(input);
  const coldMs = performance.now() - start;
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const cpu = process.cpuUsage();
    start = performance.now();
    scheduleTick(input);
    samples.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpuSamples.push((used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  cpuSamples.sort((a, b) => a - b);
  const at = (q: number): number => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
  return {
    name: bands ? 'iris placement tick with bands and preemption' : 'iris placement tick',
    workers,
    pendingTasks,
    assignments: first.assignments.length,
    pendingJobs: first.pendingJobs.length,
    preemptions: first.preemptions.length,
    running: input.running?.length ?? 0,
    iterations,
    coldMs,
    medianMs: at(0.5),
    p90Ms: at(0.9),
    minMs: samples[0] ?? 0,
    medianCpuMs: cpuSamples[Math.floor(cpuSamples.length / 2)] ?? 0,
  };
}

/** Renders a result as the lines the bench prints. */
export function formatPlacementBench(r: PlacementBenchResult): string {
  return [
    `${r.name}: ${r.pendingTasks} pending tasks, ${r.workers} workers (nproc ${availableParallelism()})`,
    `  assignments ${r.assignments}, pending jobs ${r.pendingJobs}${r.running > 0 ? `, live tasks ${r.running}, preemptions ${r.preemptions}` : ''}`,
    `  cold ${r.coldMs.toFixed(1)} ms; over ${r.iterations} ticks: median ${r.medianMs.toFixed(1)} ms, p90 ${r.p90Ms.toFixed(1)} ms, min ${r.minMs.toFixed(1)} ms, median CPU ${r.medianCpuMs.toFixed(1)} ms`,
  ].join('\n');
}

/** One scheduler version's figures in {@link comparePlacement}. */
export interface PlacementSideFigures {
  readonly medianCpuMs: number;
  readonly minCpuMs: number;
  readonly medianMs: number;
}

/** What {@link comparePlacement} measured on one snapshot. */
export interface PlacementComparison {
  readonly bands: boolean;
  readonly rounds: number;
  readonly ours: PlacementSideFigures;
  readonly theirs: PlacementSideFigures;
  /** The two results are equal as JSON (assignments, pending reasons, preemptions, expiries). */
  readonly sameResult: boolean;
}

type Tick = (input: SchedulingInput) => unknown;

/**
 * Times this scheduler against `other` on the same generated snapshot, alternating tick by tick
 * after three warm-up ticks each, so both see the same machine load.
 */
export function comparePlacement(other: Tick, options: PlacementBenchOptions & { rounds?: number } = {}): PlacementComparison {
  const bands = options.bands ?? false;
  const rounds = options.rounds ?? 21;
  const input = buildInput(options.workers ?? 1000, options.pendingTasks ?? 10_000, bands);
  const sides: Array<[Tick, number[], number[]]> = [
    [scheduleTick, [], []],
    [other, [], []],
  ];
  const sameResult = JSON.stringify(scheduleTick(input)) === JSON.stringify(other(input));
  for (const [tick] of sides) for (let w = 0; w < 3; w++) tick(input);
  for (let r = 0; r < rounds; r++) {
    for (const [tick, cpu, wall] of sides) {
      const before = process.cpuUsage();
      const start = performance.now();
      tick(input);
      wall.push(performance.now() - start);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const figures = ([, cpu, wall]: [Tick, number[], number[]]): PlacementSideFigures => ({
    medianCpuMs: median(cpu),
    minCpuMs: Math.min(...cpu),
    medianMs: median(wall),
  });
  return { bands, rounds, ours: figures(sides[0] as [Tick, number[], number[]]), theirs: figures(sides[1] as [Tick, number[], number[]]), sameResult };
}

/** Renders a comparison as the lines the bench prints. */
export function formatPlacementComparison(c: PlacementComparison): string {
  const side = (f: PlacementSideFigures): string =>
    `CPU median ${f.medianCpuMs.toFixed(1)} ms (min ${f.minCpuMs.toFixed(1)}), wall median ${f.medianMs.toFixed(1)} ms`;
  return [
    `${c.bands ? 'with bands and preemption' : 'without bands'}, ${c.rounds} alternating ticks each (load average ${loadavg()[0]?.toFixed(1)}):`,
    `  this tree: ${side(c.ours)}`,
    `  other:     ${side(c.theirs)}`,
    `  CPU ratio ${(c.ours.medianCpuMs / c.theirs.medianCpuMs).toFixed(2)}; same result as JSON: ${c.sameResult ? 'yes' : 'NO'}`,
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--against');
  const against = at >= 0 ? process.argv[at + 1] : undefined;
  if (against === undefined) {
    console.log(formatPlacementBench(runPlacementBench()));
    console.log(formatPlacementBench(runPlacementBench({ bands: true })));
  } else {
    const other = (await import(pathToFileURL(join(against, 'src/scheduler/schedule-tick.ts')).href)) as { scheduleTick: Tick };
    console.log(`placement tick against ${against}: 10000 pending tasks, 1000 workers (nproc ${availableParallelism()})`);
    console.log(formatPlacementComparison(comparePlacement(other.scheduleTick)));
    console.log(formatPlacementComparison(comparePlacement(other.scheduleTick, { bands: true })));
  }
}
