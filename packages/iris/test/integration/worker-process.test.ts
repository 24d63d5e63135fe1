import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskState } from '../../src/gen/iris/v1/types.js';
import { runSpec, runWithSpec, startFakeController } from '../helpers/worker-fake-controller.js';
import { isPidRunning, startWorkerProcess } from '../helpers/worker-process.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-worker-process-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const pidTask = (marker: string) =>
  runSpec([process.execPath, '-e', `process.on('SIGTERM', () => {}); console.log('${marker} ' + process.pid); setInterval(() => {}, 1000)`]);

describe('worker entry script', () => {
  it('takes a crashed daemon\'s tasks down with it, and a restarted daemon finds nothing left to kill', async () => {
    await using controller = await startFakeController();
    const options = { controllerAddress: controller.address, workerId: 'w-crash', cacheDir: join(dir, 'cache'), registerRetryInitialMs: 50, logFlushIntervalMs: 50, termTimeoutMs: 300 };
    const first = await startWorkerProcess(options);
    await controller.waitFor(() => controller.registrations.length === 1);
    const spec = pidTask('task-pid');
    await controller.reconcileUntil('w-crash', [runWithSpec(spec)], (o) => o[0]?.state === TaskState.TASK_STATE_RUNNING);
    await controller.waitFor(() => controller.logs.some((e) => e.data.startsWith('task-pid ')));
    const taskPid = Number(controller.logs.find((e) => e.data.startsWith('task-pid '))?.data.split(' ')[1]);
    expect(await readdir(join(dir, 'cache', 'running'))).toEqual([`${spec.attemptUid}.json`]);

    // A crash: the daemon dies without stopping anything. The task's supervisor sees its lease pipe
    // close and kills the task's group at once, although the task ignores SIGTERM.
    await first.stop('SIGKILL');
    await controller.waitFor(() => !isPidRunning(taskPid));

    await using second = await startWorkerProcess(options);
    expect(second.killedLeftovers).toEqual([]);
    expect(await readdir(join(dir, 'cache', 'running'))).toEqual([]);
  });

  it('stops its attempts before exiting on SIGTERM', async () => {
    await using controller = await startFakeController();
    const worker = await startWorkerProcess({ controllerAddress: controller.address, workerId: 'w-term', cacheDir: join(dir, 'cache'), registerRetryInitialMs: 50, logFlushIntervalMs: 50, termTimeoutMs: 300 });
    await controller.waitFor(() => controller.registrations.length === 1);
    const spec = pidTask('p');
    await controller.reconcileUntil('w-term', [runWithSpec(spec)], (o) => o[0]?.state === TaskState.TASK_STATE_RUNNING);
    await controller.waitFor(() => controller.logs.some((e) => e.data.startsWith('p ')));
    const taskPid = Number(controller.logs.find((e) => e.data.startsWith('p '))?.data.split(' ')[1]);
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(isPidRunning(taskPid)).toBe(false);
    expect(worker.events.some((e) => e['event'] === 'stopped')).toBe(true);
  });
});
