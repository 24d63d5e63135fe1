import { LaunchJobRequest, RegisterRequest } from '../../src/gen/iris/v1/controller.js';
import type { DeepPartial } from '../../src/gen/iris/v1/controller.js';
import { TaskState, WorkerMetadata } from '../../src/gen/iris/v1/types.js';
import type { AttributeValue } from '../../src/gen/iris/v1/types.js';
import type { AttemptObservation } from '../../src/gen/iris/v1/worker.js';
import { ControllerState } from '../../src/controller/controller-state.js';
import type { ReconcilePlan } from '../../src/controller/controller-state.js';
import type { LogArchive } from '../../src/controller/log-archive.js';
import { openControllerDatabase } from '../../src/controller/store/database.js';
import type { ControllerDatabase } from '../../src/controller/store/database.js';

/** A worker as tests describe it. */
export interface HarnessWorker {
  cpu?: number;
  memoryGiB?: number;
  attributes?: Record<string, string | number>;
  tpu?: { variant: string; chips: number };
  bootId?: string;
}

function attr(v: string | number): AttributeValue {
  return { v: typeof v === 'string' ? { $case: 'stringValue', value: v } : { $case: 'intValue', value: v } };
}

/** A controller state machine over in-memory SQLite with a manual clock and scripted workers. */
export function createStateHarness(
  options: { graceMs?: number; minFailures?: number; limits?: { maxBuildingTasks?: number; maxAssignmentsPerWorker?: number }; logArchive?: LogArchive } = {},
) {
  let now = 1_700_000_000_000;
  const warnings: string[] = [];
  const db: ControllerDatabase = openControllerDatabase(':memory:');
  const state = new ControllerState({
    db,
    clock: () => now,
    liveness: { workerUnreachableGraceMs: options.graceMs ?? 10_000, minUnreachableFailures: options.minFailures ?? 3 },
    limits: options.limits ?? {},
    warn: (m) => warnings.push(m),
    logArchive: options.logArchive,
  });
  const h = {
    state,
    /** Rows in a table. */
    count(table: string): number {
      return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    },
    warnings,
    get now() {
      return now;
    },
    advance(ms: number) {
      now += ms;
    },
    registerWorker(id: string, w: HarnessWorker = {}) {
      const attributes: Record<string, AttributeValue> = {};
      for (const [k, v] of Object.entries(w.attributes ?? {})) attributes[k] = attr(v);
      return state.register(
        RegisterRequest.fromPartial({
          workerId: id,
          bootId: w.bootId ?? 'boot-1',
          address: `127.0.0.1:${10000 + id.length}`,
          metadata: WorkerMetadata.fromPartial({
            hostname: id,
            cpuMillicores: (w.cpu ?? 4) * 1000,
            memoryBytes: (w.memoryGiB ?? 16) * 2 ** 30,
            device: w.tpu ? { kind: { $case: 'tpu', value: { variant: w.tpu.variant, topology: '', count: w.tpu.chips } } } : undefined,
            attributes,
          }),
        }),
      );
    },
    launch(name: string, req: DeepPartial<LaunchJobRequest> = {}) {
      return state.launchJob(
        LaunchJobRequest.fromPartial({
          name,
          entrypoint: { run: { argv: ['true'] } },
          resources: { cpuMillicores: 1000, memoryBytes: 2 ** 30 },
          ...req,
        }),
      );
    },
    /** The scheduling pass of one controller tick (timeouts, placement, commit). */
    tick() {
      return state.schedulingPass();
    },
    plan(workerId: string): ReconcilePlan {
      const p = state.planReconcile().find((x) => x.workerId === workerId);
      if (!p) throw new Error(`no plan for ${workerId}`);
      return p;
    },
    /** Replies to the worker's current desired set with these observations. */
    respond(workerId: string, observed: Partial<AttemptObservation>[], healthy = true) {
      const plan = state.planReconcile().find((x) => x.workerId === workerId)!;
      return state.applyReconcileResult(plan, {
        response: {
          workerId,
          workerTimeMs: 0,
          observed: observed.map((o) => ({ attemptUid: '', state: TaskState.TASK_STATE_UNSPECIFIED, exitCode: 0, error: '', startedAtMs: 0, finishedAtMs: 0, ports: {}, ...o })),
          health: { healthy, error: healthy ? '' : 'disk full' },
        },
      });
    },
    failReconcile(workerId: string) {
      const plan = state.planReconcile().find((x) => x.workerId === workerId) ?? { workerId, address: '', desired: [], planned: new Set<string>() };
      return state.applyReconcileResult(plan, { error: new Error('unreachable') });
    },
    /** The current attempt uid of a task. */
    uidOf(taskId: string): string {
      const task = state.store.task(taskId)!;
      return state.store.attempt(taskId, task.current_attempt_id)!.attempt_uid;
    },
    /** Reports a task's current attempt in `s` on its worker. */
    report(taskId: string, s: TaskState, extra: Partial<AttemptObservation> = {}) {
      const task = state.store.task(taskId)!;
      const attempt = state.store.attempt(taskId, task.current_attempt_id)!;
      return h.respond(attempt.worker_id, [{ attemptUid: attempt.attempt_uid, state: s, ...extra }]);
    },
    /** Runs the current attempt of `taskId` to a terminal state through RUNNING. */
    finish(taskId: string, s: TaskState, exitCode = 0) {
      h.report(taskId, TaskState.TASK_STATE_RUNNING);
      h.report(taskId, s, { exitCode });
    },
    taskState(taskId: string): TaskState {
      return state.store.task(taskId)!.state;
    },
    jobState(jobId: string) {
      return state.store.job(jobId)!.state;
    },
    close() {
      db.close();
    },
  };
  return h;
}
