import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBundle } from '../../src/bundle/create-bundle.js';
import { buildSetupCommands } from '../../src/core/setup-commands.js';
import { LogSource, TaskState } from '../../src/gen/iris/v1/types.js';
import type { AttemptObservation } from '../../src/gen/iris/v1/worker.js';
import { startWorker } from '../../src/worker/worker-daemon.js';
import { runSpec, runWithSpec, startFakeController } from '../helpers/worker-fake-controller.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-worker-prepare-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(root: string, path: string, content: string): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
}

/** A workspace installable offline (one `file:` dependency); postinstall counts installs. */
async function workspace(name: string, code: string, setupScript?: string): Promise<string> {
  const root = join(dir, name);
  await write(root, 'local-dep/package.json', JSON.stringify({ name: 'local-dep', version: '1.0.0', bin: { 'local-dep': 'cli.js' } }));
  await write(root, 'local-dep/cli.js', '#!/usr/bin/env node\nconsole.log("local-dep ok")\n');
  await chmod(join(root, 'local-dep/cli.js'), 0o755);
  const scripts: Record<string, string> = {
    postinstall: `node -e "require('fs').appendFileSync(process.env.COUNTER_FILE, 'x')"`,
  };
  if (setupScript !== undefined) scripts['iris:setup'] = setupScript;
  await write(root, 'package.json', JSON.stringify({ name: 'ws', version: '1.0.0', private: true, dependencies: { 'local-dep': 'file:./local-dep' }, scripts }));
  await write(root, 'main.js', code);
  return root;
}

/** A registered worker whose tasks count dependency installs in `counter` (the workspace's setup appends to it). */
async function startCountingWorker(controllerAddress: string, counter: string) {
  const worker = await startWorker({
    controllerAddress,
    workerId: 'w-1',
    cacheDir: join(dir, 'cache'),
    registerRetryInitialMs: 50,
    logFlushIntervalMs: 50,
    taskEnv: { COUNTER_FILE: counter },
  });
  await worker.waitForRegistration();
  return worker;
}

const done = (o: AttemptObservation[]): boolean =>
  o[0] !== undefined && [TaskState.TASK_STATE_SUCCEEDED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_WORKER_FAILED].includes(o[0].state);

describe('worker daemon: bundles and setup', () => {
  it('fetches a bundle once per worker, runs setup in BUILDING with build logs, and reuses dependencies for a code-only change', async () => {
    await using controller = await startFakeController();
    const counter = join(dir, 'installs');
    await using _worker = await startCountingWorker(controller.address, counter);
    const v1 = await createBundle({ root: await workspace('v1', 'console.log("v1")') });
    const v2 = await createBundle({ root: await workspace('v2', 'console.log("v2")') });
    controller.bundles.set(v1.id, v1.archive);
    controller.bundles.set(v2.id, v2.archive);
    const setup = buildSetupCommands({ bundleRoot: v1.root }).map((argv) => ({ argv }));
    const task = (bundleId: string, index: number) =>
      runSpec(['sh', '-c', 'node main.js && local-dep'], {
        taskId: `/alice/job/${index}`,
        taskIndex: index,
        bundleId,
        entrypoint: { setupCommands: setup, workdirFiles: {}, inPlace: false, workdir: '' },
      });

    const first = task(v1.id, 0);
    const states: TaskState[] = [];
    await controller.reconcileUntil('w-1', [runWithSpec(first)], (o) => {
      if (o[0] !== undefined) states.push(o[0].state);
      return done(o);
    });
    expect(states).toContain(TaskState.TASK_STATE_BUILDING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_SUCCEEDED);
    const firstLogs = controller.logs.filter((e) => e.attemptUid === first.attemptUid);
    expect(firstLogs.filter((e) => e.source === LogSource.LOG_SOURCE_BUILD).map((e) => e.data)).toContain('$ npm install --no-audit --no-fund');
    expect(firstLogs.filter((e) => e.source === LogSource.LOG_SOURCE_STDOUT).map((e) => e.data)).toEqual(['v1', 'local-dep ok']);

    // Same bundle again: no second download. New bundle with the same package.json: no reinstall.
    const second = task(v1.id, 1);
    const third = task(v2.id, 2);
    await controller.reconcileUntil('w-1', [runWithSpec(second), runWithSpec(third)], (o) => o.length === 2 && o.every((x) => done([x])));
    expect(controller.bundleFetches.filter((id) => id === v1.id)).toHaveLength(1);
    expect(controller.bundleFetches.filter((id) => id === v2.id)).toHaveLength(1);
    expect(await readFile(counter, 'utf8')).toBe('x');
    const thirdLogs = controller.logs.filter((e) => e.attemptUid === third.attemptUid);
    expect(thirdLogs.some((e) => e.data.startsWith('[iris] reusing dependencies '))).toBe(true);
    expect(thirdLogs.filter((e) => e.source === LogSource.LOG_SOURCE_STDOUT).map((e) => e.data)).toEqual(['v2', 'local-dep ok']);
  });

  it('fails an attempt whose setup fails with the command and exit code, and retries setup next time', async () => {
    await using controller = await startFakeController();
    const counter = join(dir, 'installs');
    await using _worker = await startCountingWorker(controller.address, counter);
    const bundle = await createBundle({ root: await workspace('bad', 'console.log(1)', 'exit 5') });
    controller.bundles.set(bundle.id, bundle.archive);
    const setup = buildSetupCommands({ bundleRoot: bundle.root }).map((argv) => ({ argv }));
    const spec = (i: number) =>
      runSpec(['node', 'main.js'], { taskIndex: i, bundleId: bundle.id, entrypoint: { setupCommands: setup, workdirFiles: {}, inPlace: false, workdir: '' } });
    const a = spec(0);
    const [obs] = await controller.reconcileUntil('w-1', [runWithSpec(a)], done);
    expect(obs).toMatchObject({ state: TaskState.TASK_STATE_FAILED, exitCode: 5, error: 'setup command failed: npm run iris:setup --if-present exited 5' });
    const b = spec(1);
    await controller.reconcileUntil('w-1', [runWithSpec(b)], done);
    const bLogs = controller.logs.filter((e) => e.attemptUid === b.attemptUid).map((e) => e.data);
    expect(bLogs).toContain('$ npm run iris:setup --if-present');
    // Dependencies installed fine the first time, so only the failing hook re-ran.
    expect(await readFile(counter, 'utf8')).toBe('x');
  });

  it('reports WORKER_FAILED when the bundle cannot be fetched', async () => {
    await using controller = await startFakeController();
    await using worker = await startWorker({ controllerAddress: controller.address, workerId: 'w-1', cacheDir: join(dir, 'cache'), registerRetryInitialMs: 50 });
    await worker.waitForRegistration();
    const spec = runSpec(['true'], { bundleId: 'e'.repeat(64) });
    const [obs] = await controller.reconcileUntil('w-1', [runWithSpec(spec)], done);
    expect(obs).toMatchObject({ state: TaskState.TASK_STATE_WORKER_FAILED });
  });
});
