import { getTpuTopology } from '../../src/core/tpu-topology.js';
import { scheduleTick } from '../../src/scheduler/schedule-tick.js';
import type {
  Assignment,
  Constraint,
  Coscheduling,
  ResourceAmounts,
  SchedulerJob,
  SchedulerLimits,
  SchedulerTask,
  SchedulerWorker,
  SchedulingResult,
  WorkerAttributes,
} from '../../src/scheduler/types.js';

// Builds scheduler snapshots for unit tests and replays several ticks the way the controller commits them.

/** One GiB in bytes. */
export const GIB = 2 ** 30;

/** No resources. */
export const NONE: ResourceAmounts = { cpuMillicores: 0, memoryBytes: 0, gpuCount: 0, tpuChips: 0 };

/** Worker shape in test units (cores, GiB); everything optional. */
export interface WorkerFixture {
  cores?: number;
  memoryGiB?: number;
  gpus?: number;
  tpuChips?: number;
  attributes?: WorkerAttributes;
  healthy?: boolean;
  committed?: Partial<ResourceAmounts>;
  building?: number;
}

/** A healthy 8-core, 32 GiB worker unless told otherwise. */
export function worker(workerId: string, f: WorkerFixture = {}): SchedulerWorker {
  return {
    workerId,
    healthy: f.healthy ?? true,
    attributes: f.attributes ?? {},
    capacity: {
      cpuMillicores: (f.cores ?? 8) * 1000,
      memoryBytes: (f.memoryGiB ?? 32) * GIB,
      gpuCount: f.gpus ?? 0,
      tpuChips: f.tpuChips ?? 0,
    },
    committed: { ...NONE, ...f.committed },
    buildingCount: f.building ?? 0,
  };
}

/** The workers of one simulated TPU slice, ids `<name>-w<i>`, attributes as a worker in a TPU slice advertises them. */
export function tpuSlice(name: string, variant: string, f: WorkerFixture & { order?: number[] } = {}): SchedulerWorker[] {
  const t = getTpuTopology(variant);
  const order = f.order ?? [...Array(t.vmCount).keys()];
  return order.map((i) =>
    worker(`${name}-w${i}`, {
      cores: 8,
      ...f,
      tpuChips: t.chipsPerVm,
      attributes: {
        'device-type': 'tpu',
        'device-variant': t.name,
        'tpu-name': name,
        'tpu-worker-id': i,
        'tpu-vm-count': t.vmCount,
        ...f.attributes,
      },
    }),
  );
}

/** Job shape in test units; queue keys default to submission order. */
export interface JobFixture {
  cores?: number;
  memoryGiB?: number;
  gpus?: number;
  tpuChips?: number;
  constraints?: Constraint[];
  coscheduling?: Coscheduling | null;
  depth?: number;
  rootSubmittedAtMs?: number;
  submittedAtMs?: number;
  seq?: number;
  taskCount?: number;
}

let seq = 0;

/** A 1-core, 1 GiB job; depth from its id unless given. */
export function job(jobId: string, f: JobFixture = {}): SchedulerJob {
  seq += 1;
  const submitted = f.submittedAtMs ?? 1_000 + seq;
  return {
    jobId,
    depth: f.depth ?? jobId.split('/').length - 2,
    rootSubmittedAtMs: f.rootSubmittedAtMs ?? submitted,
    submittedAtMs: submitted,
    insertionSeq: f.seq ?? seq,
    resources: {
      cpuMillicores: Math.round((f.cores ?? 1) * 1000),
      memoryBytes: Math.round((f.memoryGiB ?? 1) * GIB),
      gpuCount: f.gpus ?? 0,
      tpuChips: f.tpuChips ?? 0,
    },
    constraints: f.constraints ?? [],
    coscheduling: f.coscheduling ?? null,
    ...(f.taskCount === undefined ? {} : { taskCount: f.taskCount }),
  };
}

/** `count` PENDING tasks of `j`, ids `<job>/<index>`. */
export function tasks(j: SchedulerJob, count: number, f: Partial<SchedulerTask> = {}): SchedulerTask[] {
  return [...Array(count).keys()].map((i) => ({ taskId: `${j.jobId}/${i}`, jobId: j.jobId, taskIndex: i, state: 'PENDING', ...f }));
}

/** A job with its pending tasks. */
export function jobWithTasks(jobId: string, count: number, f: JobFixture = {}): { job: SchedulerJob; tasks: SchedulerTask[] } {
  const j = job(jobId, f);
  return { job: j, tasks: tasks(j, count) };
}

/** Runs `scheduleTick` on workers and job entries (clock 10 s unless given). */
export function tick(
  workers: readonly SchedulerWorker[],
  entries: ReadonlyArray<{ job: SchedulerJob; tasks: SchedulerTask[] }>,
  opts: { nowMs?: number; limits?: SchedulerLimits } = {},
): SchedulingResult {
  return scheduleTick({
    nowMs: opts.nowMs ?? 10_000,
    workers,
    jobs: entries.map((e) => e.job),
    tasks: entries.flatMap((e) => e.tasks),
    ...(opts.limits === undefined ? {} : { limits: opts.limits }),
  });
}

/** Worker id each task went to. */
export function placement(result: SchedulingResult): Record<string, string> {
  return Object.fromEntries(result.assignments.map((a: Assignment) => [a.taskId, a.workerId]));
}

/**
 * A tiny cluster that commits each tick's assignments the way the controller would: placed tasks
 * become RUNNING (not building) and hold their resources until `finish()`.
 */
export class SimCluster {
  workers: SchedulerWorker[];
  readonly entries: Array<{ job: SchedulerJob; tasks: SchedulerTask[] }> = [];
  readonly running = new Map<string, { workerId: string; need: ResourceAmounts }>();

  constructor(workers: SchedulerWorker[]) {
    this.workers = workers;
  }

  submit(jobId: string, count: number, f: JobFixture = {}): SchedulerJob {
    const e = jobWithTasks(jobId, count, f);
    this.entries.push(e);
    return e.job;
  }

  tick(opts: { nowMs?: number; limits?: SchedulerLimits; building?: boolean } = {}): SchedulingResult {
    const result = tick(this.workers, this.entries, opts);
    for (const a of result.assignments) {
      const entry = this.entries.find((e) => e.job.jobId === a.jobId);
      if (entry === undefined) continue;
      entry.tasks = entry.tasks.map((t) => (t.taskId === a.taskId ? { ...t, state: opts.building === true ? 'ASSIGNED' : 'RUNNING' } : t));
      this.running.set(a.taskId, { workerId: a.workerId, need: entry.job.resources });
      this.#commit(a.workerId, entry.job.resources, 1, opts.building === true ? 1 : 0);
    }
    return result;
  }

  /** Ends a running task (success) and releases what it held. */
  finish(taskId: string): void {
    const r = this.running.get(taskId);
    if (r === undefined) return;
    this.running.delete(taskId);
    for (const e of this.entries) e.tasks = e.tasks.map((t) => (t.taskId === taskId ? { ...t, state: 'SUCCEEDED' } : t));
    this.#commit(r.workerId, r.need, -1, 0);
  }

  pendingCount(): number {
    return this.entries.reduce((n, e) => n + e.tasks.filter((t) => t.state === 'PENDING').length, 0);
  }

  #commit(workerId: string, need: ResourceAmounts, sign: 1 | -1, building: number): void {
    this.workers = this.workers.map((w) =>
      w.workerId !== workerId
        ? w
        : {
            ...w,
            buildingCount: w.buildingCount + building,
            committed: {
              cpuMillicores: w.committed.cpuMillicores + sign * need.cpuMillicores,
              memoryBytes: w.committed.memoryBytes + sign * need.memoryBytes,
              gpuCount: w.committed.gpuCount + sign * need.gpuCount,
              tpuChips: w.committed.tpuChips + sign * need.tpuChips,
            },
          },
    );
  }
}
