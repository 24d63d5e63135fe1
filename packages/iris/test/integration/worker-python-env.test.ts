import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobState, LogSource, TaskState } from '../../src/gen/iris/v1/types.js';
import type { LogEntry } from '../../src/gen/iris/v1/types.js';
import { startControllerProcess } from '../helpers/worker-cluster.js';
import type { ControllerProcess } from '../helpers/worker-cluster.js';
import { fastWorkerOptions, startWorkerProcess } from '../helpers/worker-process.js';

// Real worker daemons building with real uv against PyPI: one small pure-Python package pinned exactly.
const SIX_LOCK = 'six==1.17.0\n';
const PRINT_SIX = ['python', '-c', 'import os, sys, six; print("six", six.__version__); print("prefix", sys.prefix); print("venv", os.environ["VIRTUAL_ENV"])'];

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-worker-pyenv-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Environment directories in a worker's cache (no leases, no staging leftovers). */
async function envDirs(workerId: string): Promise<string[]> {
  try {
    return (await readdir(join(dir, workerId, 'python-envs'))).filter((n) => !n.endsWith('.lock') && !n.includes('.tmp-')).sort();
  } catch {
    return [];
  }
}

async function logsOf(controller: ControllerProcess, jobId: string): Promise<LogEntry[]> {
  return (await controller.fetchLogs({ jobId })).entries;
}

function printed(entries: readonly LogEntry[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    const m = e.source === LogSource.LOG_SOURCE_STDOUT ? /^(six|prefix|venv) (.+)$/.exec(e.data) : null;
    if (m !== null) out[m[1] as string] = m[2] as string;
  }
  return out;
}

const buildStarts = (entries: readonly LogEntry[]): LogEntry[] => entries.filter((e) => e.source === LogSource.LOG_SOURCE_BUILD && e.data.startsWith('building Python'));
const reuses = (entries: readonly LogEntry[]): LogEntry[] => entries.filter((e) => e.source === LogSource.LOG_SOURCE_BUILD && e.data.startsWith('[iris] reusing Python'));

const pythonEnv = (lock: string) => ({ environment: { envVars: {}, dependencyGroups: [], npmPackages: [], pythonEnv: { lock, pythonVersion: '3.11', name: 'six.lock' } } });

describe('worker: Python environments', () => {
  it('builds a job\'s environment once per lock, shares it between concurrent attempts, and runs tasks in it', async () => {
    await using controller = await startControllerProcess({ reconcileIntervalMs: 100 });
    await using worker = await startWorkerProcess(fastWorkerOptions(dir, controller.address, 'w-py'));
    expect(worker.workerId).toBe('w-py');
    const [a, b] = await Promise.all([
      controller.launchJob({ name: '/alice/six-a', argv: PRINT_SIX, ...pythonEnv(SIX_LOCK) }),
      controller.launchJob({ name: '/alice/six-b', argv: PRINT_SIX, ...pythonEnv(SIX_LOCK) }),
    ]);
    const jobs = await Promise.all([controller.waitForJob(a), controller.waitForJob(b)]);
    expect(jobs.map((j) => j.state)).toEqual([JobState.JOB_STATE_SUCCEEDED, JobState.JOB_STATE_SUCCEEDED]);
    const [envName, ...more] = await envDirs('w-py');
    expect(more).toEqual([]);
    const envDir = join(dir, 'w-py', 'python-envs', envName as string);
    const [logsA, logsB] = await Promise.all([logsOf(controller, a), logsOf(controller, b)]);
    expect(printed(logsA)).toEqual({ six: '1.17.0', prefix: envDir, venv: envDir });
    expect(printed(logsB)).toEqual({ six: '1.17.0', prefix: envDir, venv: envDir });
    expect([...buildStarts(logsA), ...buildStarts(logsB)]).toHaveLength(1);

    // A later job with the same lock finds it built; a changed lock gets its own environment.
    const c = await controller.launchJob({ name: '/alice/six-c', argv: PRINT_SIX, ...pythonEnv(SIX_LOCK) });
    expect((await controller.waitForJob(c)).state).toBe(JobState.JOB_STATE_SUCCEEDED);
    const logsC = await logsOf(controller, c);
    expect(buildStarts(logsC)).toHaveLength(0);
    expect(reuses(logsC)).toHaveLength(1);
    const d = await controller.launchJob({ name: '/alice/six-d', argv: PRINT_SIX, ...pythonEnv(`# changed\n${SIX_LOCK}`) });
    expect((await controller.waitForJob(d)).state).toBe(JobState.JOB_STATE_SUCCEEDED);
    expect(buildStarts(await logsOf(controller, d))).toHaveLength(1);
    expect(await envDirs('w-py')).toHaveLength(2);
  });

  it('fails a lock that does not install as a job failure with uv\'s error text, spending no preemption retries', async () => {
    await using controller = await startControllerProcess({ reconcileIntervalMs: 100 });
    await using _worker = await startWorkerProcess(fastWorkerOptions(dir, controller.address, 'w-bad'));
    const jobId = await controller.launchJob({
      name: '/alice/bad-lock',
      argv: ['python', '-c', 'print("must not run")'],
      maxRetriesFailure: 1,
      maxRetriesPreemption: 0,
      ...pythonEnv('six==99.0.0\n'),
    });
    const job = await controller.waitForJob(jobId);
    expect(job.state).toBe(JobState.JOB_STATE_FAILED);
    expect(job.preemptionCount).toBe(0);
    const task = job.tasks[0];
    expect(task).toMatchObject({ state: TaskState.TASK_STATE_FAILED, failureCount: 2, preemptionCount: 0 });
    expect(task?.attempts.map((at) => [at.state, at.isWorkerFailure])).toEqual([
      [TaskState.TASK_STATE_FAILED, false],
      [TaskState.TASK_STATE_FAILED, false],
    ]);
    expect(task?.error).toContain('six==99.0.0');
    const logs = await logsOf(controller, jobId);
    expect(logs.some((e) => e.source === LogSource.LOG_SOURCE_BUILD && e.data.includes('six==99.0.0'))).toBe(true);
    expect(logs.some((e) => e.data === 'must not run')).toBe(false);
    expect(await envDirs('w-bad')).toEqual([]);
  });
});
