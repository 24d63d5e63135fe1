import { z } from 'zod';

const TimingMs = z.number().int().positive();

function envMs(name: string): number | undefined {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Options of `startWorker`, validated at the edge. */
export const WorkerOptionsSchema = z.object({
  /** Controller address as `host:port`. */
  controllerAddress: z.string().min(1),
  /**
   * Stable worker id.
   * @default the content of `<cacheDir>/worker-id`, created as `<hostname>-<port>`
   */
  workerId: z.string().min(1).max(256).optional(),
  /** Interface the WorkerService binds. @default "127.0.0.1" */
  host: z.string().min(1).default('127.0.0.1'),
  /** Port the WorkerService binds; 0 picks a free one. @default 0 */
  port: z.number().int().min(0).max(65535).default(0),
  /** Host other machines (and gang peers) reach this worker at. @default `host`, or the hostname when binding all interfaces */
  advertiseHost: z.string().min(1).optional(),
  /** Root of the worker's state: worker id, bundles, dependency caches, workdirs, running records. */
  cacheDir: z.string().min(1),
  /** Extra attributes; numbers stay numbers. @default {} */
  attributes: z.record(z.string().min(1), z.union([z.string(), z.number()])).default({}),
  /** CPU capacity in millicores. @default all host cores */
  cpuMillicores: z.number().int().nonnegative().optional(),
  /** Memory capacity. @default total host memory */
  memoryBytes: z.number().int().nonnegative().optional(),
  /** Disk capacity. @default free bytes of the cache dir's filesystem */
  diskBytes: z.number().int().nonnegative().optional(),
  /** Simulate one VM of a TPU slice: `{ variant: 'v5litepod-16', name: 'slice-a', workerId: 2 }`. */
  tpu: z
    .object({
      variant: z.string().min(1),
      name: z.string().min(1),
      workerId: z.number().int().nonnegative(),
    })
    .optional(),
  /** Advertise GPUs: canonical lower-case variant (`h100`) and count. */
  gpu: z.object({ variant: z.string().min(1), count: z.number().int().positive() }).optional(),
  /** Probe `nvidia-smi` for GPUs when neither `tpu` nor `gpu` is given. @default true */
  probeGpus: z.boolean().default(true),
  /** Variables every task gets (`--task-env K=V`); `IRIS_*` keys are ignored. @default {} */
  taskEnv: z.record(z.string().min(1), z.string()).default({}),
  /** Shared token: sent to the controller and required from it. @default `IRIS_AUTH_TOKEN` */
  authToken: z.string().min(1).optional(),
  /** Grace between SIGTERM and SIGKILL when stopping an attempt. @default 5000 */
  termTimeoutMs: TimingMs.default(5000),
  /**
   * Each task's supervisor kills the task when the daemon has not renewed its lease for this long
   * (the daemon renews every quarter of it). Keep it well below the controller's
   * `workerUnreachableGraceMs`, so a stalled worker's tasks are dead and their outcomes reported
   * before the controller gives up on the worker. @default 10000, or `IRIS_TASK_LEASE_MS`
   */
  taskLeaseMs: TimingMs.default(() => envMs('IRIS_TASK_LEASE_MS') ?? 10_000),
  /** How long a supervisor whose daemon is gone keeps trying to report its task's outcome. @default 60000 */
  supervisorReportTimeoutMs: TimingMs.default(60_000),
  /** Register again when no Reconcile arrived for this long. @default 60000, or `IRIS_WORKER_REREGISTER_AFTER_MS` */
  reregisterAfterMs: TimingMs.default(() => envMs('IRIS_WORKER_REREGISTER_AFTER_MS') ?? 60_000),
  /** First Register retry delay; doubles up to `registerRetryMaxMs`. @default 500 */
  registerRetryInitialMs: TimingMs.default(500),
  /** Longest Register retry delay. @default 10000 */
  registerRetryMaxMs: TimingMs.default(10_000),
  /** Deadline of each unary call to the controller. @default 10000 */
  rpcTimeoutMs: TimingMs.default(10_000),
  /** How often a running group's usage is sampled from `/proc`. @default 5000 */
  usageIntervalMs: TimingMs.default(5000),
  /** How often buffered log lines are pushed. @default 200 */
  logFlushIntervalMs: TimingMs.default(200),
  /** How long an ending attempt waits for its logs to be delivered before reporting. @default 10000 */
  logDrainTimeoutMs: TimingMs.default(10_000),
  /** Below this many free bytes on the cache dir's filesystem the worker reports itself unhealthy. @default 67108864 */
  minFreeDiskBytes: z.number().int().nonnegative().default(64 * 1024 * 1024),
  /** Extracted bundles kept in the cache. @default 16 */
  bundleCacheEntries: z.number().int().positive().default(16),
  /**
   * Caps on a bundle archive's inflated bytes and entry count, checked while it is extracted.
   * @default `IRIS_BUNDLE_MAX_INFLATED_BYTES` / `IRIS_BUNDLE_MAX_ENTRIES`, else 1 GiB and 100,000
   */
  bundleLimits: z.object({ maxInflatedBytes: z.number().int().positive(), maxEntries: z.number().int().positive() }).partial().optional(),
});

/** What callers pass to `startWorker`. */
export type WorkerOptions = z.input<typeof WorkerOptionsSchema>;

/** The resolved worker configuration. */
export type WorkerConfig = z.output<typeof WorkerOptionsSchema>;
