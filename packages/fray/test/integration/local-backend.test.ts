import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Entrypoint, FrayError, JobFailed, ResourceConfig, createLocalClient, currentClient, currentJobContext, waitAll } from '@marin/fray';
import type { FrayLogger, JobStatus } from '@marin/fray';
import { isProcessGroupAlive, pollUntil } from '@marin/rigging';

import { clientContract } from '../contracts/client.contract.js';
import { reentryCommand } from '../helpers/reentry-command.js';

const FIXTURE = 'packages/fray/test/fixtures/jobs.ts';

function captureLogger(): FrayLogger & { lines: string[]; warnings: string[] } {
  const lines: string[] = [];
  const warnings: string[] = [];
  return { lines, warnings, info: (m) => lines.push(m), warn: (m) => warnings.push(m) };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Polls `check` every 20 ms; the test fails when it does not hold within `timeoutMs`. */
async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  expect(await pollUntil(check, { timeoutMs, interval: 20 })).toBe(true);
}

clientContract('local', () => createLocalClient({ logger: captureLogger(), killGraceMs: 500 }));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fray-local-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('local backend: callables', () => {
  it('runs a callable pending/running → succeeded, and wait returns succeeded', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const gate = deferred();
    const job = await client.submit({ name: 'cb', entrypoint: Entrypoint.fromCallable(() => gate.promise) });
    expect(['pending', 'running']).toContain(await job.status());
    await until(async () => (await job.status()) === 'running');
    gate.resolve();
    expect(await job.wait()).toBe('succeeded');
    expect(await job.status()).toBe('succeeded');
  });

  it('raises JobFailed with the original error as cause, or returns failed without raising', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const original = new Error('boom');
    const job = await client.submit({
      name: 'bad',
      entrypoint: Entrypoint.fromCallable(() => {
        throw original;
      }),
    });
    const err = await job.wait().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobFailed);
    expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED', jobId: job.jobId, failedStatus: 'failed' });
    expect((err as JobFailed).cause).toBe(original);
    expect(await job.wait({ raiseOnFailure: false })).toBe('failed');
  });

  it('aborts a terminated callable’s signal and reports stopped at once, ignoring its late result', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    let seen: AbortSignal | undefined;
    const never = deferred();
    const job = await client.submit({
      name: 'stoppable',
      entrypoint: Entrypoint.fromCallable(async () => {
        seen = currentJobContext()?.signal;
        await never.promise;
      }),
    });
    await until(() => seen !== undefined);
    await job.terminate();
    expect(seen?.aborted).toBe(true);
    expect(await job.status()).toBe('stopped');
    never.resolve();
    await new Promise((r) => setTimeout(r, 20));
    expect(await job.status()).toBe('stopped');
    await expect(job.wait()).rejects.toMatchObject({ code: 'FRAY_JOB_FAILED', failedStatus: 'stopped' });
  });

  it('runs replicas with distinct task indexes and job env outside process.env', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const seen: { taskIndex: number; numTasks: number; env: Record<string, string>; inProcessEnv: string | undefined }[] = [];
    const job = await client.submit({
      name: 'replicas',
      replicas: 3,
      environment: { envVars: { FRAY_TEST_ONLY_VAR: 'yes' } },
      entrypoint: Entrypoint.fromCallable(() => {
        const ctx = currentJobContext();
        if (ctx === null) throw new Error('no job context');
        seen.push({ taskIndex: ctx.taskIndex, numTasks: ctx.numTasks, env: { ...ctx.env }, inProcessEnv: process.env['FRAY_TEST_ONLY_VAR'] });
      }),
    });
    await job.wait();
    expect(seen.map((s) => s.taskIndex).sort()).toEqual([0, 1, 2]);
    expect(seen.every((s) => s.numTasks === 3 && s.env['FRAY_TEST_ONLY_VAR'] === 'yes' && s.inProcessEnv === undefined)).toBe(true);
  });

  it('makes the submitting client current inside an in-process job', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    let inside: unknown;
    const job = await client.submit({ name: 'cur', entrypoint: Entrypoint.fromCallable(() => (inside = currentClient())) });
    await job.wait();
    expect(inside).toBe(client);
    expect(currentJobContext()).toBeNull();
  });
});

describe('local backend: binaries', () => {
  it('runs node -e "process.exit(0)" to success; exit 3 fails with Exit code 3', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const ok = await client.submit({ name: 'ok', entrypoint: Entrypoint.fromBinary(process.execPath, ['-e', 'process.exit(0)']) });
    expect(await ok.wait()).toBe('succeeded');
    const bad = await client.submit({ name: 'three', entrypoint: Entrypoint.fromBinary(process.execPath, ['-e', 'process.exit(3)']) });
    expect(await bad.wait({ raiseOnFailure: false })).toBe('failed');
    const err = (await bad.wait().catch((e: unknown) => e)) as JobFailed;
    expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED', failedStatus: 'failed' });
    expect(err.cause).toMatchObject({ code: 'FRAY_JOB_FAILED', details: { exitCode: 3 }, message: 'Exit code 3' });
  });

  it('gives ids local-<name>-<8 hex> and keeps a bounded tail of the output for logs()', async () => {
    const logger = captureLogger();
    await using client = createLocalClient({ logger, tailLines: 5 });
    const script = 'for (let i = 0; i < 8; i++) console.log("line " + i); console.error("err line");';
    const job = await client.submit({ name: 'talker', entrypoint: Entrypoint.fromBinary(process.execPath, ['-e', script]) });
    expect(job.jobId).toMatch(/^local-talker-[0-9a-f]{8}$/);
    await job.wait();
    const tail = await job.logs();
    expect(tail).toHaveLength(5);
    expect(tail).toContain('line 7');
    expect(tail).toContain('err line');
    expect(await job.logs({ maxLines: 2 })).toHaveLength(2);
    expect(logger.lines).toContain(`[${job.jobId}] line 0`);
  });

  it('passes env vars and the job identity to the subprocess', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const out = join(dir, 'env.json');
    const script = `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ v: process.env.MY_VAR, id: process.env.FRAY_JOB_ID, i: process.env.FRAY_TASK_INDEX }))`;
    const job = await client.submit({
      name: 'envy',
      environment: { envVars: { MY_VAR: 'hello' } },
      entrypoint: Entrypoint.fromBinary(process.execPath, ['-e', script]),
    });
    await job.wait();
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual({ v: 'hello', id: job.jobId, i: '0' });
  });

  it('runs binary replicas as separate processes with their task index, prefixing their output', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const script = `require('fs').writeFileSync(require('path').join(${JSON.stringify(dir)}, 'task-' + process.env.FRAY_TASK_INDEX), process.env.FRAY_NUM_TASKS); console.log('hi')`;
    const job = await client.submit({ name: 'bin-replicas', replicas: 2, entrypoint: Entrypoint.fromBinary(process.execPath, ['-e', script]) });
    await job.wait();
    expect(await readFile(join(dir, 'task-0'), 'utf8')).toBe('2');
    expect(await readFile(join(dir, 'task-1'), 'utf8')).toBe('2');
    expect((await job.logs()).sort()).toEqual(['task=0 | hi', 'task=1 | hi']);
  });

  it('terminate → stopped and the whole process group is gone, even a child ignoring SIGTERM', async () => {
    await using client = createLocalClient({ logger: captureLogger(), killGraceMs: 300 });
    const pidFile = join(dir, 'pid');
    const script = `
      const { spawn } = require('child_process');
      const c = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
      process.on('SIGTERM', () => {});
      setInterval(() => {}, 1000);`;
    const job = await client.submit({ name: 'sleeper', entrypoint: Entrypoint.fromBinary(process.execPath, ['-e', script]) });
    await until(async () => (await readFile(pidFile, 'utf8').catch(() => '')) !== '');
    const pgid = Number(await readFile(pidFile, 'utf8'));
    expect(isProcessGroupAlive(pgid)).toBe(true);
    await job.terminate();
    expect(await job.status()).toBe('stopped');
    // A killed member may linger as a zombie until init reaps it; it no longer runs, so it does not count.
    await until(() => !isProcessGroupAlive(pgid), 5000);
  });

  it('fails a job whose command does not exist', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const job = await client.submit({ name: 'nope', entrypoint: Entrypoint.fromBinary('/definitely/not/a/command') });
    expect(await job.wait({ raiseOnFailure: false })).toBe('failed');
  });
});

describe('local backend: module entrypoints', () => {
  it('imports a workspace module in-process and calls the export with JSON args', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const out = join(dir, 'marker.json');
    const job = await client.submit({
      name: 'mod',
      entrypoint: Entrypoint.fromModule({ module: FIXTURE, exportName: 'writeMarker', args: { out, text: 'hi' } }),
    });
    expect(await job.wait()).toBe('succeeded');
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual({ text: 'hi', jobId: job.jobId, taskIndex: 0 });
  });

  it('fails on a throwing export (cause = the thrown error) and on a missing export', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const thrower = await client.submit({ name: 'throw', entrypoint: Entrypoint.fromModule({ module: FIXTURE, exportName: 'explode', args: { message: 'kaput' } }) });
    const err = (await thrower.wait().catch((e: unknown) => e)) as JobFailed;
    expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED' });
    expect((err.cause as Error).message).toBe('kaput');
    const missing = await client.submit({ name: 'missing', entrypoint: Entrypoint.fromModule({ module: FIXTURE, exportName: 'notAFunction' }) });
    const err2 = (await missing.wait().catch((e: unknown) => e)) as JobFailed;
    expect(err2.cause).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT', details: { exportName: 'notAFunction' } });
  });

  it('runs a callable through its module reentry in a subprocess with callables: "reentry"', async () => {
    await using client = createLocalClient({ logger: captureLogger(), callables: 'reentry' });
    const out = join(dir, 'reentry.json');
    let ranInProcess = false;
    const job = await client.submit({
      name: 'reenter',
      entrypoint: Entrypoint.fromCallable(() => (ranInProcess = true), {
        reentry: Entrypoint.fromModule({ module: FIXTURE, exportName: 'writeMarker', args: { out, text: 'sub' } }),
      }),
    });
    expect(await job.wait()).toBe('succeeded');
    expect(ranInProcess).toBe(false);
    // The runner's process sees its job through FRAY_* variables.
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual({ text: 'sub', jobId: job.jobId, taskIndex: 0 });
    const failing = await client.submit({
      name: 'reenter-fail',
      entrypoint: Entrypoint.fromCallable(() => undefined, {
        reentry: Entrypoint.fromModule({ module: FIXTURE, exportName: 'explode', args: { message: 'sub-kaput' } }),
      }),
    });
    expect(await failing.wait({ raiseOnFailure: false })).toBe('failed');
    expect((await failing.logs()).join('\n')).toContain('sub-kaput');
  });

  it('warns once about accelerators it does not enforce', async () => {
    const logger = captureLogger();
    await using client = createLocalClient({ logger });
    for (const name of ['gpu-a', 'gpu-b']) {
      const job = await client.submit({ name, resources: ResourceConfig.withGpu('H100'), entrypoint: Entrypoint.fromCallable(() => undefined) });
      await job.wait();
    }
    expect(logger.warnings).toHaveLength(1);
  });

  it('refuses a callable without reentry in reentry mode', async () => {
    await using client = createLocalClient({ logger: captureLogger(), callables: 'reentry' });
    await expect(client.submit({ name: 'closure', entrypoint: Entrypoint.fromCallable(() => 1) })).rejects.toMatchObject({
      code: 'FRAY_ENTRYPOINT_NOT_PORTABLE',
    });
  });
});

describe('local backend: scheduling and names', () => {
  it('keeps jobs beyond maxConcurrency pending until a slot frees', async () => {
    await using client = createLocalClient({ logger: captureLogger(), maxConcurrency: 1 });
    const first = deferred();
    const a = await client.submit({ name: 'a', entrypoint: Entrypoint.fromCallable(() => first.promise) });
    const b = await client.submit({ name: 'b', entrypoint: Entrypoint.fromCallable(() => undefined) });
    await until(async () => (await a.status()) === 'running');
    await new Promise((r) => setTimeout(r, 50));
    expect(await b.status()).toBe('pending');
    first.resolve();
    expect(await b.wait()).toBe('succeeded');
  });

  it('returns the existing handle with adoptExisting and throws JobAlreadyExists without', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const gate = deferred();
    const job = await client.submit({ name: 'same', entrypoint: Entrypoint.fromCallable(() => gate.promise) });
    expect(await client.submit({ name: 'same', entrypoint: Entrypoint.fromCallable(() => undefined) })).toBe(job);
    const err = await client
      .submit({ name: 'same', entrypoint: Entrypoint.fromCallable(() => undefined) }, { adoptExisting: false })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'FRAY_JOB_ALREADY_EXISTS', jobName: 'same', handle: job });
    gate.resolve();
    await job.wait();
  });

  it('rejects names with whitespace, "/" or ":" and submits nothing', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    let ran = false;
    for (const name of ['has space', 'a/b', 'a:b']) {
      await expect(client.submit({ name, entrypoint: Entrypoint.fromCallable(() => (ran = true)) })).rejects.toMatchObject({
        code: 'FRAY_INVALID_ARGUMENT',
      });
    }
    expect(ran).toBe(false);
  });

  it('waits for running jobs on shutdown() by default', async () => {
    const client = createLocalClient({ logger: captureLogger() });
    const gate = deferred();
    const job = await client.submit({ name: 'drain', entrypoint: Entrypoint.fromCallable(() => gate.promise) });
    setTimeout(() => gate.resolve(), 100);
    await client.shutdown();
    expect(await job.status()).toBe('succeeded');
  });

  it('refuses submissions after shutdown and stops running jobs with wait: false', async () => {
    const client = createLocalClient({ logger: captureLogger() });
    const job = await client.submit({ name: 'long', entrypoint: Entrypoint.fromCallable(() => new Promise(() => undefined)) });
    await client.shutdown({ wait: false });
    expect(await job.status()).toBe('stopped');
    await expect(client.submit({ name: 'late', entrypoint: Entrypoint.fromCallable(() => 1) })).rejects.toSatisfy(
      (e: unknown) => FrayError.hasCode(e, 'FRAY_BACKEND_UNAVAILABLE'),
    );
  });
});

describe('waitAll() on the local backend', () => {
  it('returns statuses in input order', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const slow = deferred();
    const a = await client.submit({ name: 'wa-a', entrypoint: Entrypoint.fromCallable(() => slow.promise) });
    const b = await client.submit({ name: 'wa-b', entrypoint: Entrypoint.fromBinary(process.execPath, ['-e', 'process.exit(1)']) });
    const c = await client.submit({ name: 'wa-c', entrypoint: Entrypoint.fromCallable(() => undefined) });
    setTimeout(() => slow.resolve(), 100);
    const statuses: JobStatus[] = await waitAll([a, b, c], { raiseOnFailure: false });
    expect(statuses).toEqual(['succeeded', 'failed', 'succeeded']);
  });

  it('throws WaitTimeout naming the unfinished jobs, which keep running', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const gate = deferred();
    const a = await client.submit({ name: 'to-a', entrypoint: Entrypoint.fromCallable(() => gate.promise) });
    const b = await client.submit({ name: 'to-b', entrypoint: Entrypoint.fromCallable(() => undefined) });
    await expect(waitAll([a, b], { timeoutMs: 200 })).rejects.toMatchObject({ code: 'FRAY_WAIT_TIMEOUT', jobIds: [a.jobId], timeoutMs: 200 });
    expect(await a.status()).toBe('running');
    await expect(a.wait({ timeoutMs: 50 })).rejects.toMatchObject({ code: 'FRAY_WAIT_TIMEOUT' });
    gate.resolve();
    expect(await a.wait()).toBe('succeeded');
  });

  it('throws JobFailed for the first failure', async () => {
    await using client = createLocalClient({ logger: captureLogger() });
    const gate = deferred();
    const a = await client.submit({ name: 'f-a', entrypoint: Entrypoint.fromCallable(() => gate.promise) });
    const b = await client.submit({
      name: 'f-b',
      entrypoint: Entrypoint.fromCallable(() => {
        throw new Error('second fails');
      }),
    });
    await expect(waitAll([a, b])).rejects.toMatchObject({ code: 'FRAY_JOB_FAILED', jobId: b.jobId });
    gate.resolve();
  });
});

describe('local backend: callable re-entry', () => {
  it('runs the re-entry command from the workspace root with step_config.json shipped as a file', async () => {
    await using client = createLocalClient({ logger: captureLogger(), callables: 'reentry' });
    const out = join(dir, 'step.json');
    const reentry = reentryCommand({
      fixture: 'reentry-entry.ts',
      nodeFlags: ['--conditions=@marin/source', '--import', 'tsx'],
      args: ['--user-flag', 'x'],
      prefix: dir,
      runStep: `${dir}/tokenized/x-abc123`,
      config: { out },
    });
    const job = await client.submit({ name: 'step', entrypoint: Entrypoint.fromCallable(() => undefined, { reentry }) });
    expect(await job.wait()).toBe('succeeded');
    const seen = JSON.parse(await readFile(out, 'utf8')) as { runStep: string; prefix: string; argv: string[]; cwd: string };
    expect(seen).toMatchObject({ runStep: `${dir}/tokenized/x-abc123`, prefix: dir });
    expect(seen.argv.slice(0, 2)).toEqual(['--user-flag', 'x']);
    expect(seen.cwd).toBe(join(import.meta.dirname, '../../../..'));

    const failing = reentryCommand({ fixture: 'reentry-entry.ts', nodeFlags: ['--import', 'tsx'], prefix: dir, runStep: 'nope', config: { out, fail: true } });
    const bad = await client.submit({ name: 'step-bad', entrypoint: Entrypoint.fromCallable(() => undefined, { reentry: failing }) });
    expect(await bad.wait({ raiseOnFailure: false })).toBe('failed');
    expect((await bad.logs()).join('\n')).toContain('not found in the rebuilt DAG');
  });
});
