import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkerServiceClient } from '../../src/gen/iris/v1/worker.js';
import { LogSource, StopReason, TaskState } from '../../src/gen/iris/v1/types.js';
import type { AttemptObservation } from '../../src/gen/iris/v1/worker.js';
import { startWorker } from '../../src/worker/worker-daemon.js';
import type { WorkerOptions } from '../../src/worker/worker-options.js';
import { keepRunning, runSpec, runWithSpec, startFakeController, stopWith } from '../helpers/worker-fake-controller.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-worker-reconcile-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NODE = process.execPath;
const TERMINAL = new Set([TaskState.TASK_STATE_SUCCEEDED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_KILLED, TaskState.TASK_STATE_WORKER_FAILED]);
const isTerminal = (o: AttemptObservation | undefined): boolean => o !== undefined && TERMINAL.has(o.state);

function workerOptions(controllerAddress: string, extra: Partial<WorkerOptions> = {}): WorkerOptions {
  return {
    controllerAddress,
    workerId: 'w-1',
    cacheDir: join(dir, 'cache'),
    registerRetryInitialMs: 50,
    registerRetryMaxMs: 200,
    termTimeoutMs: 500,
    logFlushIntervalMs: 50,
    ...extra,
  };
}

describe('worker daemon: registration', () => {
  it('retries Register until the controller accepts, advertising id, boot id, address and capacity', async () => {
    await using controller = await startFakeController({ failRegistrations: 3 });
    await using worker = await startWorker(workerOptions(controller.address, { cpuMillicores: 2000, attributes: { region: 'us-east1', rack: 7 } }));
    await worker.waitForRegistration({ timeoutMs: 20_000 });
    const reg = controller.registrations[0];
    expect(reg).toMatchObject({ workerId: 'w-1', bootId: worker.bootId, address: worker.address });
    expect(reg?.metadata).toMatchObject({ cpuMillicores: 2000 });
    expect(reg?.metadata?.attributes).toMatchObject({
      'device-type': { v: { $case: 'stringValue', value: 'cpu' } },
      preemptible: { v: { $case: 'stringValue', value: 'false' } },
      region: { v: { $case: 'stringValue', value: 'us-east1' } },
      rack: { v: { $case: 'intValue', value: 7 } },
    });
    expect(worker.address).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('keeps a persisted worker id across restarts and draws a new boot id each start', async () => {
    await using controller = await startFakeController();
    const options = workerOptions(controller.address, { workerId: undefined });
    const first = await startWorker(options);
    const id = first.workerId;
    const boot = first.bootId;
    await first.close();
    await using second = await startWorker(options);
    expect(second.workerId).toBe(id);
    expect(second.bootId).not.toBe(boot);
    expect((await readFile(join(dir, 'cache', 'worker-id'), 'utf8')).trim()).toBe(id);
  });

  it('registers again when no Reconcile arrives for reregisterAfterMs', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address, { reregisterAfterMs: 300 }));
    await worker.waitForRegistration();
    await controller.waitFor(() => controller.registrations.length >= 2, 20_000);
    expect(controller.registrations.every((r) => r.bootId === worker.bootId)).toBe(true);
  });

  it('rejects malformed options with IRIS_INVALID_ARGUMENT', async () => {
    await expect(startWorker({ controllerAddress: '', cacheDir: dir })).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    await expect(
      startWorker({ controllerAddress: '127.0.0.1:1', cacheDir: dir, tpu: { variant: 'v9-77', name: 's', workerId: 0 } }),
    ).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    await expect(
      startWorker({ controllerAddress: '127.0.0.1:1', cacheDir: dir, tpu: { variant: 'v5litepod-16', name: 's', workerId: 4 } }),
    ).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
  });
});

describe('worker daemon: reconcile', () => {
  it('reports MISSING for an attempt it never heard of and starts nothing', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const spec = runSpec([NODE, '-e', '0']);
    const res = await controller.reconcile('w-1', [keepRunning(spec)]);
    expect(res.observed).toEqual([expect.objectContaining({ attemptUid: spec.attemptUid, state: TaskState.TASK_STATE_MISSING })]);
    expect(res.health).toMatchObject({ healthy: true });
    expect(worker.runningAttempts).toBe(0);
  });

  it('runs exit 0 to SUCCEEDED and exit 3 to FAILED with exit_code 3, keeping terminal states sticky', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const ok = runSpec([NODE, '-e', 'process.exit(0)']);
    const bad = runSpec([NODE, '-e', 'process.exit(3)'], { taskId: '/alice/job/1', taskIndex: 1 });
    const desired = [runWithSpec(ok), runWithSpec(bad)];
    const observed = await controller.reconcileUntil('w-1', desired, (o) => o.length === 2 && o.every(isTerminal));
    expect(observed[0]).toMatchObject({ state: TaskState.TASK_STATE_SUCCEEDED, exitCode: 0 });
    expect(observed[1]).toMatchObject({ state: TaskState.TASK_STATE_FAILED, exitCode: 3, error: 'Exit code 3' });
    expect(observed[1]?.finishedAtMs).toBeGreaterThan(0);
    // The spec again (a re-sent dispatch) never restarts a finished attempt.
    const again = await controller.reconcile('w-1', desired);
    expect(again.observed.map((o) => o.state)).toEqual([TaskState.TASK_STATE_SUCCEEDED, TaskState.TASK_STATE_FAILED]);
  });

  it('a failed attempt carries its last stderr line that states a cause, not only the exit code', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const script = 'console.error("FAILED a/b-123456: vocab.json missing [ENOENT]"); console.error("  full error: /tmp/x.log"); process.exit(1)';
    const bad = runSpec([NODE, '-e', script]);
    const observed = await controller.reconcileUntil('w-1', [runWithSpec(bad)], (o) => o.length === 1 && o.every(isTerminal));
    expect(observed[0]).toMatchObject({ state: TaskState.TASK_STATE_FAILED, exitCode: 1, error: 'Exit code 1: FAILED a/b-123456: vocab.json missing [ENOENT]' });
  });

  it('gives the task its own workdir, process group and the IRIS_* environment, which the job env cannot override', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address, { taskEnv: { FROM_WORKER: 'w' } }));
    await worker.waitForRegistration();
    const script = `
      const stat = require('fs').readFileSync('/proc/self/stat', 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      console.log(JSON.stringify({ cwd: process.cwd(), pid: process.pid, pgrp: Number(f[2]), env: process.env }));`;
    const spec = runSpec([NODE, '-e', script], {
      jobId: '/alice/train',
      taskId: '/alice/train/1',
      taskIndex: 1,
      numTasks: 2,
      attemptId: 2,
      ports: ['http'],
      environment: { envVars: { MY_VAR: 'x', IRIS_TASK_ID: '/evil/0', FROM_WORKER: 'job' }, dependencyGroups: ['eval'], npmPackages: [] },
    });
    const observed = await controller.reconcileUntil('w-1', [runWithSpec(spec)], (o) => isTerminal(o[0]));
    expect(observed[0]).toMatchObject({ state: TaskState.TASK_STATE_SUCCEEDED });
    const line = controller.logs.find((e) => e.attemptUid === spec.attemptUid && e.data.startsWith('{'));
    const seen = JSON.parse(line?.data ?? '{}') as { cwd: string; pid: number; pgrp: number; env: Record<string, string> };
    expect(seen.cwd).toBe(join(dir, 'cache', 'workdirs', '_alice_train_1_attempt_2'));
    expect(seen.pgrp).toBe(seen.pid);
    expect(seen.env).toMatchObject({
      MY_VAR: 'x',
      FROM_WORKER: 'job',
      IRIS_JOB_ID: '/alice/train',
      IRIS_TASK_ID: '/alice/train/1',
      IRIS_TASK_INDEX: '1',
      IRIS_NUM_TASKS: '2',
      IRIS_ATTEMPT_ID: '2',
      IRIS_ATTEMPT_UID: spec.attemptUid,
      IRIS_USER: 'alice',
      IRIS_WORKER_ID: 'w-1',
      IRIS_CONTROLLER_ADDRESS: controller.address,
      IRIS_WORKDIR: seen.cwd,
      IRIS_JOB_DEPENDENCY_GROUPS: '["eval"]',
      TMPDIR: join(seen.cwd, '.tmp'),
    });
    expect(Number(seen.env['IRIS_PORT_HTTP'])).toBeGreaterThan(0);
    expect(observed[0]?.ports).toEqual({ http: Number(seen.env['IRIS_PORT_HTTP']) });
  });

  it('ships stdout, stderr and system lines with levels before reporting the terminal state', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const spec = runSpec([NODE, '-e', 'console.log("INFO hello"); for (let i = 0; i < 500; i++) console.log("line " + i); console.error("ERROR bad thing"); process.exitCode = 2']);
    const observed = await controller.reconcileUntil('w-1', [runWithSpec(spec)], (o) => isTerminal(o[0]));
    // Already delivered when the terminal state was first observable.
    const mine = controller.logs.filter((e) => e.attemptUid === spec.attemptUid);
    expect(observed[0]).toMatchObject({ state: TaskState.TASK_STATE_FAILED, exitCode: 2 });
    const stdout = mine.filter((e) => e.source === LogSource.LOG_SOURCE_STDOUT);
    expect(stdout).toHaveLength(501);
    expect(stdout.at(-1)?.data).toBe('line 499');
    expect(mine.find((e) => e.source === LogSource.LOG_SOURCE_STDERR)).toMatchObject({ data: 'ERROR bad thing', level: 40 });
    expect(mine.some((e) => e.source === LogSource.LOG_SOURCE_SYSTEM)).toBe(true);
    const seqs = mine.map((e) => e.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(seqs.map((_, i) => i));
  });

  it('stops an attempt with SIGTERM then SIGKILL after termTimeoutMs, reports KILLED, and stays idempotent', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address, { termTimeoutMs: 300 }));
    await worker.waitForRegistration();
    const spec = runSpec([NODE, '-e', 'process.on("SIGTERM", () => console.log("ignoring SIGTERM")); console.log("up"); setInterval(() => {}, 1000)']);
    await controller.reconcileUntil('w-1', [runWithSpec(spec)], (o) => o[0]?.state === TaskState.TASK_STATE_RUNNING);
    await controller.waitFor(() => controller.logs.some((e) => e.attemptUid === spec.attemptUid && e.data === 'up'));
    const stop = stopWith(spec, StopReason.STOP_REASON_CANCELLED);
    const observed = await controller.reconcileUntil('w-1', [stop], (o) => isTerminal(o[0]));
    expect(observed[0]).toMatchObject({ state: TaskState.TASK_STATE_KILLED, exitCode: 137 });
    expect(controller.logs.some((e) => e.attemptUid === spec.attemptUid && e.data === 'ignoring SIGTERM')).toBe(true);
    expect((await controller.reconcile('w-1', [stop])).observed[0]).toMatchObject({ state: TaskState.TASK_STATE_KILLED });
  });

  it('kills a live attempt the controller no longer lists and reports it once', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const zombie = runSpec([NODE, '-e', 'setInterval(() => {}, 1000)']);
    await controller.reconcileUntil('w-1', [runWithSpec(zombie)], (o) => o[0]?.state === TaskState.TASK_STATE_RUNNING);
    const first = await controller.reconcile('w-1', []);
    expect(first.observed.map((o) => o.attemptUid)).toEqual([zombie.attemptUid]);
    await controller.waitFor(() => worker.runningAttempts === 0);
    expect((await controller.reconcile('w-1', [])).observed).toEqual([]);
  });

  it('fails the attempt with FAILED (the job\'s fault, not the worker\'s) when the command does not exist', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const spec = runSpec(['/no/such/program']);
    const observed = await controller.reconcileUntil('w-1', [runWithSpec(spec)], (o) => isTerminal(o[0]));
    expect(observed[0]).toMatchObject({ state: TaskState.TASK_STATE_FAILED, exitCode: 127 });
  });

  it('writes workdir files and stops every attempt on close', async () => {
    await using controller = await startFakeController();
    const worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const spec = runSpec([NODE, '-e', 'console.log(require("fs").readFileSync("conf/a.json", "utf8")); setInterval(() => {}, 1000)'], {
      entrypoint: { setupCommands: [], workdirFiles: { 'conf/a.json': Buffer.from('{"a":1}') }, inPlace: false, workdir: '' },
    });
    await controller.reconcileUntil('w-1', [runWithSpec(spec)], (o) => o[0]?.state === TaskState.TASK_STATE_RUNNING);
    await controller.waitFor(() => controller.logs.some((e) => e.data === '{"a":1}'));
    await worker.close();
    expect(worker.runningAttempts).toBe(0);
    await expect(stat(join(dir, 'cache', 'running', `${spec.attemptUid}.json`))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('runs an in-place attempt in the given directory with TMPDIR in its own attempt dir', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const spec = runSpec([NODE, '-e', 'console.log(process.cwd() + "|" + process.env.TMPDIR)'], {
      entrypoint: { setupCommands: [{ argv: ['false'] }], workdirFiles: {}, inPlace: true, workdir: dir },
    });
    const observed = await controller.reconcileUntil('w-1', [runWithSpec(spec)], (o) => isTerminal(o[0]));
    expect(observed[0]).toMatchObject({ state: TaskState.TASK_STATE_SUCCEEDED });
    const line = controller.logs.find((e) => e.attemptUid === spec.attemptUid && e.data.includes('|'));
    expect(line?.data.split('|')[0]).toBe(dir);
    expect(line?.data.split('|')[1]).toContain(join('cache', 'workdirs'));
  });

  it('refuses Reconcile without the shared token', async () => {
    await using controller = await startFakeController({ token: 's3cret' });
    await using worker = await startWorker(workerOptions(controller.address, { authToken: 's3cret' }));
    await worker.waitForRegistration();
    await expect(controller.reconcile('w-1', [], 'wrong')).rejects.toMatchObject({ code: 16 });
    await expect(controller.reconcile('w-1', [])).resolves.toMatchObject({ workerId: 'w-1' });
  });

  it('answers HealthCheck with uptime and the number of running attempts', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const spec = runSpec([NODE, '-e', 'setInterval(() => {}, 1000)']);
    await controller.reconcileUntil('w-1', [runWithSpec(spec)], (o) => o[0]?.state === TaskState.TASK_STATE_RUNNING);
    expect(await controller.healthCheck('w-1')).toMatchObject({ healthy: true, runningAttempts: 1 });
    await controller.reconcileUntil('w-1', [stopWith(spec, StopReason.STOP_REASON_CANCELLED)], (o) => isTerminal(o[0]));
    expect(await controller.healthCheck('w-1')).toMatchObject({ healthy: true, runningAttempts: 0 });
  });

  it('stops an attempt during setup and reports KILLED without running the command', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address, { termTimeoutMs: 200 }));
    await worker.waitForRegistration();
    const marker = join(dir, 'ran');
    const spec = runSpec([NODE, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`], {
      entrypoint: { setupCommands: [{ argv: [NODE, '-e', 'console.log("setting up"); setInterval(() => {}, 1000)'] }], workdirFiles: {}, inPlace: false, workdir: '' },
    });
    await controller.reconcile('w-1', [runWithSpec(spec)]);
    await controller.waitFor(() => controller.logs.some((e) => e.attemptUid === spec.attemptUid && e.data === 'setting up'));
    const [obs] = await controller.reconcileUntil('w-1', [stopWith(spec, StopReason.STOP_REASON_JOB_TERMINATED)], (o) => isTerminal(o[0]));
    expect(obs).toMatchObject({ state: TaskState.TASK_STATE_KILLED });
    await expect(stat(marker)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('advertises attributes from IRIS_WORKER_ATTRIBUTES under the explicit ones', async () => {
    await using controller = await startFakeController();
    const saved = process.env['IRIS_WORKER_ATTRIBUTES'];
    process.env['IRIS_WORKER_ATTRIBUTES'] = 'pool=blue,slots=4,region=from-env';
    try {
      await using worker = await startWorker(workerOptions(controller.address, { attributes: { region: 'explicit' } }));
      await worker.waitForRegistration();
      expect(worker.attributes).toMatchObject({ pool: 'blue', slots: 4, region: 'explicit' });
    } finally {
      if (saved === undefined) delete process.env['IRIS_WORKER_ATTRIBUTES'];
      else process.env['IRIS_WORKER_ATTRIBUTES'] = saved;
    }
  });

  it('reports the resource usage of a running attempt sampled from /proc', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address, { usageIntervalMs: 100 }));
    await worker.waitForRegistration();
    const spec = runSpec([NODE, '-e', 'globalThis.keep = Buffer.alloc(48 * 1024 * 1024, 1); setInterval(() => {}, 1000)']);
    const [obs] = await controller.reconcileUntil(
      'w-1',
      [runWithSpec(spec)],
      (o) => o[0]?.state === TaskState.TASK_STATE_RUNNING && (o[0].usage?.memoryBytes ?? 0) > 32 * 1024 * 1024,
    );
    expect(obs?.usage).toMatchObject({ processCount: 1 });
    expect(obs?.usage?.peakMemoryBytes).toBeGreaterThanOrEqual(obs?.usage?.memoryBytes ?? 0);
    await controller.reconcileUntil('w-1', [stopWith(spec, StopReason.STOP_REASON_CANCELLED)], (o) => isTerminal(o[0]));
  });

  it('refuses a Reconcile addressed to another worker id', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address));
    await worker.waitForRegistration();
    const res = await new Promise<unknown>((resolve) => {
      const client = new WorkerServiceClient(worker.address, credentials.createInsecure());
      client.reconcile({ workerId: 'someone-else', desired: [], acceptedWorkerTimeMs: 0, livenessGraceMs: 0 }, (err) => {
        client.close();
        resolve(err);
      });
    });
    expect(res).toMatchObject({ code: status.FAILED_PRECONDITION });
  });

  it('reports itself unhealthy when its cache disk is below the free-space floor', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker(workerOptions(controller.address, { minFreeDiskBytes: Number.MAX_SAFE_INTEGER }));
    await worker.waitForRegistration();
    expect((await controller.reconcile('w-1', [])).health).toMatchObject({ healthy: false });
    expect(await controller.healthCheck('w-1')).toMatchObject({ healthy: false });
  });
});
