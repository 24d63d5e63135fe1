import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from '@marin/rigging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBundle } from '../../src/bundle/create-bundle.js';
import { buildSetupCommands } from '../../src/core/setup-commands.js';
import { JobState, LogSource, TaskState } from '../../src/gen/iris/v1/types.js';
import { startControllerProcess } from '../helpers/worker-cluster.js';
import { fastWorkerOptions, isPidRunning, startWorkerProcess } from '../helpers/worker-process.js';

/** Polls `check` every 100 ms; the test fails when it does not hold within `timeoutMs`. */
async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  expect(await pollUntil(check, { timeoutMs, interval: 100 })).toBe(true);
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-worker-e2e-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('worker processes with a real controller process', () => {
  it('runs a 2-replica job to SUCCEEDED and its stdout reaches the controller', async () => {
    await using controller = await startControllerProcess({ reconcileIntervalMs: 200 });
    await using worker = await startWorkerProcess(fastWorkerOptions(dir, controller.address, 'w-a'));
    expect(worker.workerId).toBe('w-a');
    const jobId = await controller.launchJob({
      name: '/alice/hello',
      replicas: 2,
      argv: [process.execPath, '-e', 'console.log("hello from " + process.env.IRIS_TASK_ID)'],
    });
    const job = await controller.waitForJob(jobId);
    expect(job.state).toBe(JobState.JOB_STATE_SUCCEEDED);
    expect(job.tasks.map((t) => t.state)).toEqual([TaskState.TASK_STATE_SUCCEEDED, TaskState.TASK_STATE_SUCCEEDED]);
    const logs = await controller.fetchLogs({ jobId });
    const stdout = logs.entries.filter((e) => e.source === LogSource.LOG_SOURCE_STDOUT).map((e) => e.data).sort();
    expect(stdout).toEqual(['hello from /alice/hello/0', 'hello from /alice/hello/1']);
  });

  it('reports exit 3 as a FAILED task with exit_code 3 and a FAILED job', async () => {
    await using controller = await startControllerProcess({ reconcileIntervalMs: 200 });
    await using _worker = await startWorkerProcess(fastWorkerOptions(dir, controller.address, 'w-b'));
    const jobId = await controller.launchJob({ name: '/alice/fail', argv: [process.execPath, '-e', 'process.exit(3)'] });
    const job = await controller.waitForJob(jobId);
    expect(job.state).toBe(JobState.JOB_STATE_FAILED);
    expect(job.tasks[0]).toMatchObject({ state: TaskState.TASK_STATE_FAILED, exitCode: 3 });
  });

  it('kills the process group of a terminated job', async () => {
    await using controller = await startControllerProcess({ reconcileIntervalMs: 200 });
    await using _worker = await startWorkerProcess(fastWorkerOptions(dir, controller.address, 'w-c'));
    const jobId = await controller.launchJob({
      name: '/alice/long',
      argv: [process.execPath, '-e', 'process.on("SIGTERM", () => {}); console.log("pid " + process.pid); setInterval(() => {}, 1000)'],
    });
    let pid = 0;
    await until(async () => {
      const line = (await controller.fetchLogs({ jobId })).entries.find((e) => e.data.startsWith('pid '));
      pid = Number(line?.data.split(' ')[1] ?? 0);
      return pid > 0;
    });
    expect(isPidRunning(pid)).toBe(true);
    await controller.terminateJob(jobId);
    const job = await controller.waitForJob(jobId, (j) => j.state === JobState.JOB_STATE_KILLED && j.tasks.every((t) => t.state === TaskState.TASK_STATE_KILLED));
    expect(job.state).toBe(JobState.JOB_STATE_KILLED);
    await until(() => !isPidRunning(pid));
  });

  it('kills, as a zombie, a process the restarted controller does not know', async () => {
    const port = await (async () => {
      const c = await startControllerProcess({ reconcileIntervalMs: 200 });
      const p = c.port;
      await c.stop();
      return p;
    })();
    const first = await startControllerProcess({ reconcileIntervalMs: 200, bind: `127.0.0.1:${port}`, stateDir: join(dir, 'state-1') });
    await using _worker = await startWorkerProcess(fastWorkerOptions(dir, first.address, 'w-z', { reregisterAfterMs: 1000 }));
    const jobId = await first.launchJob({ name: '/alice/orphan', argv: [process.execPath, '-e', 'console.log("pid " + process.pid); setInterval(() => {}, 1000)'] });
    let pid = 0;
    await until(async () => {
      const line = (await first.fetchLogs({ jobId })).entries.find((e) => e.data.startsWith('pid '));
      pid = Number(line?.data.split(' ')[1] ?? 0);
      return pid > 0;
    });
    await first.stop('SIGKILL');
    // Workers never kill work because the controller is unreachable.
    await new Promise((r) => setTimeout(r, 1500));
    expect(isPidRunning(pid)).toBe(true);
    // A controller with other state on the same address: the worker re-registers and its attempt is undesired.
    await using second = await startControllerProcess({ reconcileIntervalMs: 200, bind: `127.0.0.1:${port}`, stateDir: join(dir, 'state-2') });
    expect(second.port).toBe(port);
    await until(() => !isPidRunning(pid), 30_000);
  });

  it('runs bundled jobs with setup; the second job reuses the cached bundle and dependencies', async () => {
    await using controller = await startControllerProcess({ reconcileIntervalMs: 200 });
    const counter = join(dir, 'installs');
    await using _worker = await startWorkerProcess(fastWorkerOptions(dir, controller.address, 'w-d', { taskEnv: { COUNTER_FILE: counter } }));
    const root = join(dir, 'ws');
    await mkdir(join(root, 'local-dep'), { recursive: true });
    await writeFile(join(root, 'local-dep/package.json'), JSON.stringify({ name: 'local-dep', version: '1.0.0', bin: { 'local-dep': 'cli.js' } }));
    await writeFile(join(root, 'local-dep/cli.js'), '#!/usr/bin/env node\nconsole.log("dep ok")\n');
    await chmod(join(root, 'local-dep/cli.js'), 0o755);
    await writeFile(
      join(root, 'package.json'),
      JSON.stringify({
        name: 'ws',
        version: '1.0.0',
        private: true,
        dependencies: { 'local-dep': 'file:./local-dep' },
        scripts: { postinstall: `node -e "require('fs').appendFileSync(process.env.COUNTER_FILE, 'x')"` },
      }),
    );
    await writeFile(join(root, 'main.js'), 'console.log("main ran")');
    const bundle = await createBundle({ root });
    await controller.uploadBundle(bundle.id, bundle.archive);
    const setupCommands = buildSetupCommands({ bundleRoot: root }).map((argv) => ({ argv }));
    const launch = (name: string) =>
      controller.launchJob({
        name,
        bundleId: bundle.id,
        argv: ['sh', '-c', 'node main.js && local-dep'],
        entrypoint: { setupCommands, workdirFiles: {}, inPlace: false, workdir: '' },
      });
    const a = await launch('/alice/bundled-a');
    expect((await controller.waitForJob(a)).state).toBe(JobState.JOB_STATE_SUCCEEDED);
    const b = await launch('/alice/bundled-b');
    expect((await controller.waitForJob(b)).state).toBe(JobState.JOB_STATE_SUCCEEDED);
    const logsA = (await controller.fetchLogs({ jobId: a })).entries;
    const logsB = (await controller.fetchLogs({ jobId: b })).entries.map((e) => e.data);
    expect(logsA.filter((e) => e.source === LogSource.LOG_SOURCE_BUILD).some((e) => e.data === '$ npm install --no-audit --no-fund')).toBe(true);
    expect(logsB).toContain(`[iris] bundle ${bundle.id} served from cache`);
    expect(logsB.some((l) => l.startsWith('[iris] reusing dependencies '))).toBe(true);
    expect(logsB).toEqual(expect.arrayContaining(['main ran', 'dep ok']));
    expect(readFileSync(counter, 'utf8')).toBe('x');
  });
});
