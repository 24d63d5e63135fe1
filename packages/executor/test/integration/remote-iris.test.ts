import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createIrisBackend, findWorkspaceRoot } from '@marin/fray';
import { describe, expect, it } from 'vitest';
import { DispatchStepRunner, Executor, FrayStepRunner } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { useEmbeddedCluster } from '../helpers/embedded-cluster.js';
import { runFixture, startFixture } from '../helpers/fixture-process.js';
import { statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { FIXTURE_SCRIPT, steps as fixtureSteps } from '../fixtures/remote-steps.js';

// One embedded cluster for the file: a simulated v5litepod-16 slice (4 workers) plus 2 CPU workers,
// sized so ResourceConfig.withTpu's defaults (cpu 32, ram 128g) fit. Jobs run in place in the workspace.
const embedded = useEmbeddedCluster({
  workers: 2,
  simulateTpu: [{ variant: 'v5litepod-16', slices: 1 }],
  cpuMillicores: 64_000,
  memoryBytes: 256 * 2 ** 30,
  termTimeoutMs: 1000,
});

const WORKSPACE = findWorkspaceRoot();
const NODE_FLAGS = ['--conditions=@marin/source', '--import', 'tsx'];

async function json(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
}

async function stepDir(prefix: string, step: string): Promise<string> {
  const names = await readdir(join(prefix, 'remote'));
  return join(prefix, 'remote', names.find((n) => n.startsWith(`${step}-`))!);
}

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Walks an error's cause chain. */
function chain(e: unknown): unknown[] {
  const out: unknown[] = [];
  for (let c = e; c !== undefined && c !== null && out.length < 10; c = (c as { cause?: unknown }).cause) out.push(c);
  return out;
}

describe('remote steps on a local Iris cluster', () => {
  it('runs the TPU step as a 4-task gang on the slice and the others inline; a second run skips all three', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const env = { IRIS_CONTROLLER_ADDRESS: embedded.cluster.address };
    // --verbose: the job ids are info lines.
    const args = ['--prefix', prefix, '--fixture-client', 'iris', '--fixture-tpu', '--verbose'];
    const first = await runFixture('remote-steps.ts', { args, env });
    expect(first.code, first.stderr).toBe(0);
    const executorPid = Number(/executor pid=(\d+)/.exec(first.stdout)![1]);
    const jobId = /submitted as Fray job (\S+)/.exec(first.stderr)![1]!;

    const [data, work, report] = await Promise.all(['data', 'work', 'report'].map((s) => stepDir(prefix, s)));
    for (const d of [data!, work!, report!]) expect(await statusOf(d)).toBe('SUCCESS');
    expect((await json(join(data!, 'task-0.json')))['pid']).toBe(executorPid);
    expect((await json(join(report!, 'task-0.json')))['pid']).toBe(executorPid);
    const tasks = await Promise.all([0, 1, 2, 3].map((i) => json(join(work!, `task-${i}.json`))));
    expect(tasks.map((t) => t['tpuWorkerId'])).toEqual(['0', '1', '2', '3']);
    expect(new Set(tasks.map((t) => t['tpuName'])).size).toBe(1);
    for (const t of tasks) {
      expect(t['pid']).not.toBe(executorPid);
      expect(t['scaled']).toEqual([0, 2, 4]);
    }

    const job = await embedded.client.getJob(jobId, { includeTasks: true });
    expect(job.state).toBe('SUCCEEDED');
    expect(job.tasks).toHaveLength(4);
    expect(job.resources.device).toContain('v5litepod-16');
    for (const t of job.tasks) expect(t.workerId).toBe(`v5litepod-16-slice-0-${t.taskIndex}`);

    const second = await runFixture('remote-steps.ts', { args, env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('3 steps: 0 ran, 3 skipped (already succeeded), 0 failed, 0 not run (dependency failed)');
    expect(second.stderr).not.toContain('submitted as Fray job');
  });

  it('fails a throwing remote step: its job fails, status FAILED, "1 step(s) failed" with the job id and the remote error text', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    await using backend = createIrisBackend({ irisClient: embedded.client, inPlace: true, workspace: WORKSPACE });
    const logger = captureLogger();
    const runner = new DispatchStepRunner({
      fray: new FrayStepRunner({
        client: backend,
        logger,
        reentry: { entryScript: FIXTURE_SCRIPT, userArgs: ['--fixture-fail'], execArgv: NODE_FLAGS, steps: fixtureSteps },
        workspace: WORKSPACE,
      }),
    });
    const ex = new Executor({ prefix, logger, runner, progressStream: { write: () => true } });
    const err = await ex.run(fixtureSteps, { progress: 'plain' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', message: '1 step(s) failed' });
    const stepError = (err as { details: { failures: { details: Record<string, unknown> }[] } }).details.failures[0]!;
    const workLabel = basename(await stepDir(prefix, 'work'));
    expect(stepError).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', message: `Step failed: remote/${workLabel}; status=failed` });
    const jobId = stepError.details['jobId'] as string;
    expect((await embedded.client.getJob(jobId)).state).toBe('FAILED');
    const messages = chain(err).map((e) => (e instanceof Error ? e.message : String(e)));
    expect(messages.some((m) => m.includes('remote work exploded'))).toBe(true);
    expect(chain(err)).toContainEqual(expect.objectContaining({ code: 'FRAY_JOB_FAILED', jobId }));
    const logs = await embedded.client.fetchLogs({ jobId });
    expect(logs.entries.some((e) => e.data.includes('remote work exploded'))).toBe(true);
    expect(await statusOf(await stepDir(prefix, 'work'))).toBe('FAILED');
    expect(await statusOf(await stepDir(prefix, 'data'))).toBe('SUCCESS');
    expect(await statusOf(await stepDir(prefix, 'report'))).toBeNull();
  });

  it('terminates the Iris job when another worker steals the lease; nothing is written', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const saved = { ...process.env };
    Object.assign(process.env, { MARIN_LEASE_HEARTBEAT_S: '0.2', MARIN_LEASE_TIMEOUT_S: '10', MARIN_LEASE_POLL_S: '0.2' });
    try {
      await using backend = createIrisBackend({ irisClient: embedded.client, inPlace: true, workspace: WORKSPACE });
      const logger = captureLogger();
      const runner = new DispatchStepRunner({
        fray: new FrayStepRunner({
          client: backend,
          reentry: { entryScript: FIXTURE_SCRIPT, userArgs: ['--fixture-hang'], execArgv: NODE_FLAGS, steps: fixtureSteps },
          workspace: WORKSPACE,
        }),
      });
      const ex = new Executor({ prefix, logger, runner, progressStream: { write: () => true } });
      const run = ex.run(fixtureSteps, { progress: 'plain' }).catch((e: unknown) => e);
      const work = await eventually(async () => {
        const dir = await stepDir(prefix, 'work');
        return (await json(join(dir, 'task-0.json')))['hanging'] === true ? dir : undefined;
      }, 'the remote step to start');
      const jobId = /submitted as Fray job (\S+)/.exec(logger.all())![1]!;
      await writeFile(join(work, '.executor_status.lock'), `{"worker_id": "thief-1", "timestamp": ${(Date.now() / 1000).toFixed(3)}}`);
      const err = await run;
      expect(chain(err)).toContainEqual(expect.objectContaining({ code: 'EXECUTOR_LEASE_LOST' }));
      await eventually(async () => ((await embedded.client.getJob(jobId)).state === 'KILLED' ? true : undefined), 'the job to be killed');
      expect(await statusOf(work)).toBe('RUNNING');
      expect(JSON.parse(await readFile(join(work, '.executor_status.lock'), 'utf8'))).toMatchObject({ worker_id: 'thief-1' });
    } finally {
      for (const k of ['MARIN_LEASE_HEARTBEAT_S', 'MARIN_LEASE_TIMEOUT_S', 'MARIN_LEASE_POLL_S']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  }, 180_000); // a worker start and a lease takeover under a full CI run took over 60 s once

  it('an interrupted executor terminates its root-level Iris job before it dies', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    await using executor = startFixture('remote-steps.ts', {
      args: ['--prefix', prefix, '--fixture-client', 'iris', '--fixture-hang', '--verbose'],
      env: { IRIS_CONTROLLER_ADDRESS: embedded.cluster.address },
    });
    const work = await eventually(async () => {
      const dir = await stepDir(prefix, 'work');
      return (await json(join(dir, 'task-0.json')))['hanging'] === true ? dir : undefined;
    }, 'the remote step to start');
    const jobId = /submitted as Fray job (\S+)/.exec(executor.stderr())![1]!;
    expect((await embedded.client.getJob(jobId)).state).toBe('RUNNING');
    executor.child.kill('SIGTERM');
    expect(await executor.exited).toEqual({ code: 143, signal: null });
    expect((await embedded.client.getJob(jobId)).state).toBe('KILLED');
    expect(await statusOf(work)).toBe('FAILED');
  });

  it('stopping a job whose executor runs an inline step (the task gets SIGTERM) marks the step FAILED with its lease released', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const script = join('packages', 'executor', 'test', 'fixtures', 'unversioned-step.ts');
    const top = await embedded.client.launchJob({
      name: `inline-stop-${process.pid}`,
      command: ['node', ...NODE_FLAGS, script, '--prefix', prefix],
      inPlaceWorkdir: WORKSPACE,
      resources: { cpu: 0.5, memory: '512m' },
      env: { STEP_SLEEP_MS: '600000' },
    });
    const dir = await eventually(async () => {
      const names = await readdir(join(prefix, 'race'));
      const d = join(prefix, 'race', names.find((n) => n.startsWith('a-'))!);
      return (await statusOf(d)) === 'RUNNING' ? d : undefined;
    }, 'the step to run');
    await embedded.client.terminateJob(top);
    // The executor settles within the worker's grace: FAILED, no lease left to wait out.
    await eventually(async () => ((await statusOf(dir)) === 'FAILED' ? true : undefined), 'the step to be marked FAILED');
    await eventually(async () => ((await readdir(dir)).includes('.executor_status.lock') ? undefined : true), 'the lease to be released');
    const rerun = await runFixture('unversioned-step.ts', { args: ['--prefix', prefix], env: { STEP_SLEEP_MS: '0' } });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/started: previous run failed/);
    expect(rerun.stderr).not.toContain('waiting');
  });

  it('stopping the top-level job stops the executor’s child job; no step stays RUNNING under a live lease', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const script = FIXTURE_SCRIPT.slice(WORKSPACE.length + 1);
    const top = await embedded.client.launchJob({
      name: `remote-stop-${process.pid}`,
      command: ['node', ...NODE_FLAGS, script, '--prefix', prefix, '--fixture-hang', '--progress', 'plain'],
      inPlaceWorkdir: WORKSPACE,
      resources: { cpu: 0.5, memory: '512m' },
      env: { MARIN_LEASE_HEARTBEAT_S: '0.3', MARIN_LEASE_TIMEOUT_S: '2', MARIN_LEASE_POLL_S: '0.2' },
    });
    // The executor runs inside the task and submits remote/work as a child job, which starts and hangs.
    const work = await eventually(async () => {
      const dir = await stepDir(prefix, 'work');
      return (await json(join(dir, 'task-0.json')))['hanging'] === true ? dir : undefined;
    }, 'the remote step to start');
    const children = await embedded.client.listJobs({ prefix: `${top}/` });
    expect(children).toHaveLength(1);
    const child = children[0]!.jobId;

    await embedded.client.terminateJob(top);
    await eventually(async () => ((await embedded.client.getJob(child)).state === 'KILLED' ? true : undefined), 'the child job to be killed');
    expect((await embedded.client.getJob(top)).state).toBe('KILLED');

    // The executor got SIGTERM: either it settled in time (FAILED, lease released) or it was killed
    // first and its lease, no longer refreshed, goes stale. Either way no live holder remains.
    await sleep(2500);
    if ((await statusOf(work)) === 'RUNNING') {
      const leaseOf = async (): Promise<{ worker_id: string; timestamp: number }> => JSON.parse(await readFile(join(work, '.executor_status.lock'), 'utf8'));
      const before = await leaseOf();
      await sleep(1000);
      expect(await leaseOf()).toEqual(before);
      expect(Date.now() / 1000 - before.timestamp).toBeGreaterThan(2);
    } else {
      expect(await statusOf(work)).toBe('FAILED');
      expect(await readdir(work)).not.toContain('.executor_status.lock');
    }

    // A new run takes the stale lease over and completes the step.
    const rerun = await runFixture('remote-steps.ts', {
      args: ['--prefix', prefix],
      env: { MARIN_LEASE_HEARTBEAT_S: '0.3', MARIN_LEASE_TIMEOUT_S: '2', MARIN_LEASE_POLL_S: '0.2' },
    });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(await statusOf(work)).toBe('SUCCESS');
  });
});
