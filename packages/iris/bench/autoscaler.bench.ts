/**
 * Autoscaler evaluation: demand (scheduler dry run) + routing, waterfall and per-group decisions for
 * 10,000 pending tasks over 20 scale groups, with no workers registered (every task is demand).
 * Run: `node --conditions=@marin/source --import tsx bench/autoscaler.bench.ts`.
 */
import { performance } from 'node:perf_hooks';
import { AutoscalerTimingsSchema, ScaleGroupSchema } from '../src/autoscaler/cluster-config.js';
import { computeDemand } from '../src/autoscaler/demand.js';
import { planScaling } from '../src/autoscaler/scaling-plan.js';
import type { SchedulerJob, SchedulerTask, SchedulingInput } from '../src/scheduler/types.js';

const VARIANTS = ['v5litepod-16', 'v5litepod-32', 'v4-8', 'v6e-16', 'v5p-8'];
const groups = Array.from({ length: 20 }, (_, i) =>
  ScaleGroupSchema.parse({
    name: `g${i}`,
    slice: i < 15 ? { kind: 'tpu', variant: VARIANTS[i % VARIANTS.length] } : { kind: 'cpu' },
    resources: { cpu: 8, memory_bytes: 64 * 2 ** 30 },
    zone: `us-central${1 + (i % 3)}-a`,
    priority: i,
    max_slices: 50,
  }),
);

export function benchInput(): SchedulingInput {
  const jobs: SchedulerJob[] = [];
  const tasks: SchedulerTask[] = [];
  let seq = 0;
  const add = (job: Omit<SchedulerJob, 'insertionSeq' | 'submittedAtMs' | 'rootSubmittedAtMs' | 'depth'>, replicas: number) => {
    jobs.push({ ...job, insertionSeq: seq, submittedAtMs: seq, rootSubmittedAtMs: seq, depth: 1, taskCount: replicas });
    seq++;
    for (let t = 0; t < replicas; t++) tasks.push({ taskId: `${job.jobId}/${t}`, jobId: job.jobId, taskIndex: t, state: 'PENDING' });
  };
  // 1,000 TPU gangs of 4 (4,000 tasks) and 6,000 single CPU tasks in 600 jobs.
  for (let j = 0; j < 1000; j++) {
    add({ jobId: `/u${j % 50}/tpu-${j}`, resources: { cpuMillicores: 1000, memoryBytes: 2 ** 30, gpuCount: 0, tpuChips: 4 }, constraints: [{ key: 'device-type', op: 'EQ', value: 'tpu' }, { key: 'device-variant', op: 'EQ', value: 'v5litepod-16' }], coscheduling: { groupBy: 'tpu-name', tasksPerGroup: 4 } }, 4);
  }
  for (let j = 0; j < 600; j++) {
    add({ jobId: `/u${j % 50}/cpu-${j}`, resources: { cpuMillicores: 2000, memoryBytes: 4 * 2 ** 30, gpuCount: 0, tpuChips: 0 }, constraints: j % 3 === 0 ? [{ key: 'region', op: 'EQ', value: 'us-central2' }] : [], coscheduling: null }, 10);
  }
  return { nowMs: 1_000_000, workers: [], jobs, tasks };
}

/** Median and p95 of one evaluation over `runs` runs. */
export function runAutoscalerBench(runs = 30): { tasks: number; groups: number; medianMs: number; p95Ms: number; entries: number } {
  const snapshot = benchInput();
  const timings = AutoscalerTimingsSchema.parse({ scale_up_delay_ms: 0 });
  const times: number[] = [];
  let entries = 0;
  for (let i = 0; i < runs + 3; i++) {
    const start = performance.now();
    const demand = computeDemand(snapshot);
    planScaling({ nowMs: snapshot.nowMs, timings, groups: groups.map((config) => ({ config, backoffUntilMs: 0, demandSinceMs: 0 })), slices: [], demand });
    const ms = performance.now() - start;
    entries = demand.length;
    if (i >= 3) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { tasks: snapshot.tasks.length, groups: groups.length, medianMs: times[Math.floor(times.length / 2)]!, p95Ms: times[Math.floor(times.length * 0.95)]!, entries };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = runAutoscalerBench();
  console.log(`autoscaler evaluation: ${r.tasks} pending tasks (${r.entries} demand entries) over ${r.groups} groups: median ${r.medianMs.toFixed(1)} ms, p95 ${r.p95Ms.toFixed(1)} ms`);
}
