import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createIrisClient } from '../client/iris-client.js';
import type { IrisClient } from '../client/iris-client.js';
import { startController } from './start-controller.js';
import type { ControllerHandle } from './start-controller.js';
import { IrisError } from '../errors.js';
import { getTpuTopology } from '../core/tpu-topology.js';
import { startWorker } from '../worker/worker-daemon.js';
import type { WorkerHandle } from '../worker/worker-daemon.js';

/** Options of {@link startLocalCluster}, validated with zod. */
export const LocalClusterOptionsSchema = z.object({
  /** CPU workers to start. @default 1 */
  workers: z.number().int().nonnegative().default(1),
  /** Simulated TPU slices: `[{ variant: 'v5litepod-16', slices: 2 }]` starts 2 × vm_count workers. @default [] */
  simulateTpu: z.array(z.object({ variant: z.string().min(1), slices: z.number().int().positive().default(1) })).default([]),
  /** Controller state dir; unset = in-memory (lost on close). */
  stateDir: z.string().min(1).optional(),
  /**
   * Where task logs are archived when their job ends (a directory or any rigging URL); null archives
   * nothing. @default `<stateDir>/log-archive` with a state dir, else none
   */
  logArchive: z.string().min(1).nullable().optional(),
  /** Archived lines stay in the controller's database this long after their job ended. @default 1 day */
  logRetentionMs: z.number().int().nonnegative().optional(),
  /** How long after a job ends its logs are archived. @default 5000 */
  logArchiveSettleMs: z.number().int().nonnegative().optional(),
  /** Time between log archive passes. @default 5000 */
  logArchiveIntervalMs: z.number().int().positive().optional(),
  /** Workers' cache root; unset = a temp dir removed on close. */
  cacheDir: z.string().min(1).optional(),
  /** Controller port on 127.0.0.1. @default 0 (any free port) */
  port: z.number().int().min(0).max(65535).default(0),
  /** `host:port` of the controller's web dashboard; null serves none. @default "127.0.0.1:0" */
  dashboardBind: z.string().nullable().default('127.0.0.1:0'),
  /** The endpoint proxy's wait for a backend (see `startController`). @default 120000 */
  endpointProxyTimeoutMs: z.number().int().positive().optional(),
  /** Shared token for controller and workers. */
  authToken: z.string().min(1).optional(),
  /** `shared-token` (a single-user cluster, zero configuration) or `api-keys` (needs `authToken` for the workers). @default "shared-token" */
  authMode: z.enum(['shared-token', 'api-keys']).default('shared-token'),
  /** With `api-keys`: the first admin, whose key is written to the state dir (see `startController`). */
  bootstrapAdmin: z.string().min(1).optional(),
  /** CPU per CPU worker. @default host cores / workers */
  cpuMillicores: z.number().int().positive().optional(),
  /** Memory per CPU worker. @default total memory / workers */
  memoryBytes: z.number().int().positive().optional(),
  /** Extra attributes for every CPU worker. @default {} */
  attributes: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
  /** Control tick interval; short by default so local runs feel instant (a `true` job ends in ~2 ticks). @default 50 */
  reconcileIntervalMs: z.number().int().positive().default(50),
  /** @default 3000 */
  reconcileRpcTimeoutMs: z.number().int().positive().optional(),
  /** @default 50000 */
  workerUnreachableGraceMs: z.number().int().nonnegative().optional(),
  /** @default 3 */
  minUnreachableFailures: z.number().int().positive().optional(),
  /** Start from an empty controller DB. @default false */
  fresh: z.boolean().default(false),
  /** Grace between SIGTERM and SIGKILL for tasks. @default 5000 */
  termTimeoutMs: z.number().int().positive().optional(),
  /** Variables every task of every worker gets (as `iris worker start --task-env`); `IRIS_*` keys are ignored. @default {} */
  taskEnv: z.record(z.string().min(1), z.string()).default({}),
  /** How often workers sample a running task's CPU and memory (its reported peak RSS is the highest sample). @default 5000 */
  usageIntervalMs: z.number().int().positive().optional(),
});

/** What callers pass to {@link startLocalCluster}. */
export type LocalClusterOptions = z.input<typeof LocalClusterOptionsSchema>;

/** A running embedded cluster: one controller and its workers in this process, tasks as child processes. */
export interface LocalClusterHandle extends AsyncDisposable {
  /** Controller `127.0.0.1:<port>`. */
  readonly address: string;
  /** The controller's web dashboard, or null when it serves none. */
  readonly dashboardUrl: string | null;
  readonly controller: ControllerHandle;
  readonly workers: readonly WorkerHandle[];
  /** A new client of this cluster (the caller closes it). */
  client(): IrisClient;
  /** Stops workers (killing their tasks), then the controller; removes temp dirs. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts an embedded cluster on loopback: the real controller and worker daemons over gRPC,
 * sized to the machine by default.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for bad options or an unknown TPU variant.
 */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalClusterHandle> {
  const parsed = LocalClusterOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new IrisError('IRIS_INVALID_ARGUMENT', `local cluster option ${issue?.path.join('.')}: ${issue?.message}`, { details: { issues: parsed.error.issues } });
  }
  const o = parsed.data;
  const slices = o.simulateTpu.map((s) => ({ topology: getTpuTopology(s.variant), slices: s.slices }));
  const tempCache = o.cacheDir === undefined ? mkdtempSync(join(tmpdir(), 'iris-local-')) : undefined;
  const cacheRoot = o.cacheDir ?? tempCache!;
  const logArchive = o.logArchive === null ? undefined : (o.logArchive ?? (o.stateDir === undefined ? undefined : join(o.stateDir, 'log-archive')));
  const controller = await startController({
    stateDir: o.stateDir,
    bind: `127.0.0.1:${o.port}`,
    dashboardBind: o.dashboardBind,
    ...(o.endpointProxyTimeoutMs === undefined ? {} : { endpointProxyTimeoutMs: o.endpointProxyTimeoutMs }),
    authToken: o.authToken,
    authMode: o.authMode,
    ...(o.bootstrapAdmin === undefined ? {} : { bootstrapAdmin: o.bootstrapAdmin }),
    reconcileIntervalMs: o.reconcileIntervalMs,
    reconcileRpcTimeoutMs: o.reconcileRpcTimeoutMs,
    workerUnreachableGraceMs: o.workerUnreachableGraceMs,
    minUnreachableFailures: o.minUnreachableFailures,
    fresh: o.fresh,
    ...(logArchive === undefined ? {} : { logArchive }),
    ...(o.logRetentionMs === undefined ? {} : { logRetentionMs: o.logRetentionMs }),
    ...(o.logArchiveSettleMs === undefined ? {} : { logArchiveSettleMs: o.logArchiveSettleMs }),
    ...(o.logArchiveIntervalMs === undefined ? {} : { logArchiveIntervalMs: o.logArchiveIntervalMs }),
  });
  const workers: WorkerHandle[] = [];
  const shared = {
    controllerAddress: controller.address,
    authToken: o.authToken,
    registerRetryInitialMs: 100,
    logFlushIntervalMs: 100,
    ...(o.termTimeoutMs === undefined ? {} : { termTimeoutMs: o.termTimeoutMs }),
    ...(o.usageIntervalMs === undefined ? {} : { usageIntervalMs: o.usageIntervalMs }),
    taskEnv: o.taskEnv,
  };
  const perWorkerCpu = o.cpuMillicores ?? Math.max(1000, Math.floor((availableParallelism() * 1000) / Math.max(1, o.workers)));
  const perWorkerMemory = o.memoryBytes ?? Math.floor(totalmem() / Math.max(1, o.workers));
  try {
    for (let i = 0; i < o.workers; i++) {
      workers.push(
        await startWorker({
          ...shared,
          workerId: `local-${i}`,
          cacheDir: join(cacheRoot, `worker-${i}`),
          cpuMillicores: perWorkerCpu,
          memoryBytes: perWorkerMemory,
          attributes: o.attributes,
        }),
      );
    }
    for (const { topology, slices: n } of slices) {
      for (let s = 0; s < n; s++) {
        const name = `${topology.name}-slice-${s}`;
        for (let vm = 0; vm < topology.vmCount; vm++) {
          workers.push(
            await startWorker({
              ...shared,
              workerId: `${name}-${vm}`,
              cacheDir: join(cacheRoot, `${name}-${vm}`),
              tpu: { variant: topology.name, name, workerId: vm },
              cpuMillicores: perWorkerCpu,
              memoryBytes: perWorkerMemory,
            }),
          );
        }
      }
    }
  } catch (e) {
    for (const w of workers.reverse()) await w.close().catch(() => undefined);
    await controller.close();
    if (tempCache) rmSync(tempCache, { recursive: true, force: true });
    throw e;
  }

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      await Promise.all(workers.map((w) => w.close().catch(() => undefined)));
      await controller.close();
      if (tempCache) rmSync(tempCache, { recursive: true, force: true });
    })();
    return closed;
  };
  return {
    address: controller.address,
    dashboardUrl: controller.dashboardUrl,
    controller,
    workers,
    client: () => createIrisClient({ address: controller.address, token: o.authToken }),
    close,
    [Symbol.asyncDispose]: close,
  };
}
