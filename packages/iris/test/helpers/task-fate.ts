import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIrisClient } from '../../src/client/iris-client.js';
import type { JobInfo } from '../../src/core/job-types.js';
import { startController } from '../../src/cluster/start-controller.js';
import { spawnIris } from './cli-process.js';
import type { CliProcess } from './cli-process.js';
import { eventually } from './gate.js';

/** How the victim worker is made to vanish. */
export type WorkerFault = 'SIGKILL' | 'SIGSTOP';

/** Options of {@link runTaskFateScenario}. */
export interface TaskFateOptions {
  fault: WorkerFault;
  /** Short jobs to run. @default 1000 */
  jobs?: number;
  /** Worker daemons (real `iris worker start` processes); the first one is the victim. @default 3 */
  workers?: number;
  /** The fault strikes once this share of the jobs has finished. @default 0.3 */
  faultAt?: number;
  /** How long each job body sleeps before it records its completion. @default 200 */
  bodyMs?: number;
  /** Task lease of the workers. @default 1000 */
  taskLeaseMs?: number;
  /** The controller's liveness grace. @default 4000 */
  workerUnreachableGraceMs?: number;
  /** Progress lines, for the bench. */
  log?: (line: string) => void;
}

/** What a scenario observed. */
export interface TaskFateResult {
  jobs: number;
  /** Jobs whose body recorded its completion more than once. */
  doubleCompletions: number;
  /** Jobs that did not end SUCCEEDED with exactly one recorded completion… */
  lost: number;
  /** …of which this many ended in another state. */
  notSucceeded: number;
  /** Attempts that ended as worker failures (and were retried). */
  workerFailedAttempts: number;
  /** Jobs finished when the fault struck. */
  finishedAtFault: number;
  /** Wall time of the run, submission to the last job. */
  wallMs: number;
  /** Wall time from the fault to the last job. */
  recoveryMs: number;
  /** States of the jobs that did not succeed, for diagnostics. */
  failures: { jobId: string; state: string; error: string }[];
}

/**
 * Runs `jobs` short jobs on real worker daemons, makes the first worker vanish partway through
 * (SIGKILL of its whole process group, or SIGSTOP of the daemon until the controller declared it
 * lost, then SIGCONT), and counts how often each job body completed. A body appends its job id to a
 * shared file as its last act, so a job run to completion twice shows up as two lines.
 */
export async function runTaskFateScenario(options: TaskFateOptions): Promise<TaskFateResult> {
  const jobs = options.jobs ?? 1000;
  const workerCount = options.workers ?? 3;
  const log = options.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'iris-task-fate-'));
  const completions = join(dir, 'completions.log');
  const graceMs = options.workerUnreachableGraceMs ?? 4000;
  try {
    await using controller = await startController({
      reconcileIntervalMs: 200,
      reconcileRpcTimeoutMs: 1000,
      workerUnreachableGraceMs: graceMs,
      minUnreachableFailures: 2,
    });
    await using client = createIrisClient({ address: controller.address });
    const env = { IRIS_TASK_LEASE_MS: String(options.taskLeaseMs ?? 1000), IRIS_WORKER_REREGISTER_AFTER_MS: '1000' };
    const workers: CliProcess[] = [];
    try {
      for (let i = 0; i < workerCount; i += 1) {
        const id = `fate-w${i}`;
        const args = ['worker', 'start', '--controller', controller.address, '--worker-id', id, '--cache-dir', join(dir, id), '--cpu', '2', '--memory', '4g'];
        workers.push(spawnIris(args, { env }));
      }
      for (const [i, w] of workers.entries()) await w.waitForOutput(`iris worker fate-w${i}`);
      await eventually(async () => ((await client.listWorkers()).length === workerCount ? true : undefined), 30_000, 'workers registered');

      const started = Date.now();
      const body = `sleep ${(options.bodyMs ?? 200) / 1000}; printf '%s\\n' "$IRIS_JOB_ID" >> "$FATE_LOG"`;
      const ids: string[] = [];
      for (let i = 0; i < jobs; i += 50) {
        const batch = Array.from({ length: Math.min(50, jobs - i) }, (_, k) =>
          client.launchJob({ name: `/fate/job-${i + k}`, command: ['sh', '-c', body], env: { FATE_LOG: completions }, resources: { cpu: 0.5, memory: '64m' } }),
        );
        ids.push(...(await Promise.all(batch)));
      }
      log(`submitted ${jobs} jobs in ${Date.now() - started} ms`);

      const finished = async (): Promise<number> => {
        const states = await client.getJobStates(ids);
        return [...states.values()].filter((s) => s === 'SUCCEEDED' || s === 'FAILED' || s === 'KILLED' || s === 'WORKER_FAILED' || s === 'UNSCHEDULABLE').length;
      };
      const finishedAtFault = await eventually(async () => {
        const n = await finished();
        return n >= jobs * (options.faultAt ?? 0.3) ? n : undefined;
      }, 600_000, 'jobs finishing before the fault');
      const victim = workers[0]!;
      const faultAt = Date.now();
      if (options.fault === 'SIGKILL') {
        process.kill(-victim.child.pid!, 'SIGKILL');
        log(`SIGKILLed worker fate-w0 with ${finishedAtFault} jobs finished`);
      } else {
        process.kill(victim.child.pid!, 'SIGSTOP');
        log(`SIGSTOPped worker fate-w0 with ${finishedAtFault} jobs finished`);
        await eventually(async () => ((await client.listWorkers()).some((w) => w.workerId === 'fate-w0') ? undefined : true), 120_000, 'the controller declaring fate-w0 lost');
        log(`controller declared fate-w0 lost after ${Date.now() - faultAt} ms; SIGCONT`);
        process.kill(victim.child.pid!, 'SIGCONT');
      }

      await eventually(async () => ((await finished()) === jobs ? true : undefined), 600_000, 'every job finished');
      const ended = Date.now();
      if (options.fault === 'SIGSTOP') {
        // The resumed worker registers again and is given work like any other.
        await eventually(async () => ((await client.listWorkers()).some((w) => w.workerId === 'fate-w0') ? true : undefined), 30_000, 'fate-w0 back');
      }

      const counts = new Map<string, number>();
      for (const line of readFileSync(completions, 'utf8').split('\n')) if (line !== '') counts.set(line, (counts.get(line) ?? 0) + 1);
      const infos: JobInfo[] = [];
      for (let i = 0; i < ids.length; i += 100) {
        infos.push(...(await Promise.all(ids.slice(i, i + 100).map((id) => client.getJob(id, { includeTasks: true })))));
      }
      const failures = infos.filter((j) => j.state !== 'SUCCEEDED').map((j) => ({ jobId: j.jobId, state: j.state, error: j.error }));
      const lost = infos.filter((j) => j.state !== 'SUCCEEDED' || (counts.get(j.jobId) ?? 0) === 0).length;
      return {
        jobs,
        doubleCompletions: [...counts.values()].filter((n) => n > 1).length,
        lost,
        notSucceeded: failures.length,
        workerFailedAttempts: infos.reduce((n, j) => n + j.tasks.reduce((m, t) => m + t.attempts.filter((a) => a.isWorkerFailure).length, 0), 0),
        finishedAtFault,
        wallMs: ended - started,
        recoveryMs: ended - faultAt,
        failures,
      };
    } finally {
      for (const w of workers) {
        try {
          process.kill(w.child.pid!, 'SIGCONT');
        } catch {
          // already gone
        }
        await w[Symbol.asyncDispose]();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
