import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import { startController } from '../../src/cluster/start-controller.js';
import { spawnIris } from '../helpers/cli-process.js';
import type { CliProcess } from '../helpers/cli-process.js';
import { eventually } from '../helpers/gate.js';
import { runTaskFateScenario } from '../helpers/task-fate.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Parent pid of every process on this machine. */
function parentPids(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return parents;
}

/**
 * The pids of the task supervisors of a worker daemon that have a task running (its direct children
 * running the supervisor script with a child of their own; the daemon also keeps idle ones waiting).
 */
function busySupervisorsOf(daemonPid: number): number[] {
  const parents = parentPids();
  const withChild = new Set(parents.values());
  const pids: number[] = [];
  for (const [pid, ppid] of parents) {
    try {
      if (ppid === daemonPid && withChild.has(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('task-supervisor')) pids.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function startWorker(dir: string, id: string, controllerAddress: string, env: NodeJS.ProcessEnv = {}): CliProcess {
  const args = ['worker', 'start', '--controller', controllerAddress, '--worker-id', id, '--cache-dir', join(dir, id), '--cpu', '2', '--memory', '4g'];
  return spawnIris(args, { env: { IRIS_WORKER_REREGISTER_AFTER_MS: '1000', ...env } });
}

describe('task fate settings that cannot contradict each other', () => {
  it('keeps every body to one completion when the env sets a task lease longer than the liveness grace (SIGSTOPped worker)', async () => {
    // A 60 s lease against a 10 s grace: taken as it is, the stalled worker's finished bodies would be
    // reported only after the controller had run them again elsewhere (4 of 60 jobs completed twice).
    // Clamped to 3.3 s, the supervisors have over 6 s to report, generous on a loaded machine.
    const result = await runTaskFateScenario({ fault: 'SIGSTOP', jobs: 60, taskLeaseMs: 60_000, workerUnreachableGraceMs: 10_000 });
    expect(result).toMatchObject({ doubleCompletions: 0, lost: 0, failures: [] });
  }, 300_000);

  it('refuses a liveness grace no task lease fits under, from options or env, with IRIS_INVALID_ARGUMENT', async () => {
    await expect(startController({ dashboardBind: null, workerUnreachableGraceMs: 0 })).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    const saved = process.env['IRIS_WORKER_UNREACHABLE_GRACE_MS'];
    process.env['IRIS_WORKER_UNREACHABLE_GRACE_MS'] = '500';
    try {
      await expect(startController({ dashboardBind: null })).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    } finally {
      if (saved === undefined) delete process.env['IRIS_WORKER_UNREACHABLE_GRACE_MS'];
      else process.env['IRIS_WORKER_UNREACHABLE_GRACE_MS'] = saved;
    }
  });

  it('records in the attempt history that a failed-over attempt exited 0 when its supervisor says so late', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'iris-late-outcome-'));
    dirs.push(dir);
    const gate = join(dir, 'gate');
    const completions = join(dir, 'completions.log');
    await using controller = await startController({
      dashboardBind: null,
      reconcileIntervalMs: 200,
      reconcileRpcTimeoutMs: 1000,
      workerUnreachableGraceMs: 3000,
      minUnreachableFailures: 2,
      warn: () => undefined,
    });
    await using client = createIrisClient({ address: controller.address });
    await using first = startWorker(dir, 'late-w0', controller.address);
    await first.waitForOutput('iris worker late-w0');
    const body = `while [ ! -e "$GATE" ]; do sleep 0.05; done; printf '%s\\n' "$IRIS_ATTEMPT_ID" >> "$DONE_LOG"`;
    const jobId = await client.launchJob({ name: '/fate/late', command: ['sh', '-c', body], env: { GATE: gate, DONE_LOG: completions }, resources: { cpu: 0.5, memory: '64m' } });
    await eventually(async () => {
      const task = (await client.getJob(jobId, { includeTasks: true })).tasks[0];
      return task?.state === 'RUNNING' && task.workerId === 'late-w0' ? true : undefined;
    }, 60_000, 'the task running on late-w0');

    // Cut the worker off whole: its daemon and the task's supervisor stop, the task itself runs on.
    const daemonPid = first.child.pid!;
    const supervisors = busySupervisorsOf(daemonPid);
    expect(supervisors).toHaveLength(1);
    const supervisorPid = supervisors[0]!;
    process.kill(daemonPid, 'SIGSTOP');
    process.kill(supervisorPid, 'SIGSTOP');
    try {
      writeFileSync(gate, '');
      await eventually(() => (existsSync(completions) && readFileSync(completions, 'utf8') === '0\n' ? true : undefined), 30_000, 'attempt 0 finishing its body');
      await using second = startWorker(dir, 'late-w1', controller.address);
      await second.waitForOutput('iris worker late-w1');
      // The controller fails late-w0 over and runs the task again on late-w1.
      const job = await client.waitForJob(jobId, { timeoutMs: 60_000 });
      expect(job.state).toBe('SUCCEEDED');
      expect(readFileSync(completions, 'utf8')).toBe('0\n1\n');
      const before = (await client.getJob(jobId, { includeTasks: true })).tasks[0]!.attempts;
      expect(before.map((a) => [a.attemptId, a.state, a.lateOutcome])).toEqual([
        [0, 'WORKER_FAILED', null],
        [1, 'SUCCEEDED', null],
      ]);

      // The supervisor wakes, finds its daemon silent and reports what it saw: exit 0.
      process.kill(supervisorPid, 'SIGCONT');
      const attempts = await eventually(async () => {
        const seen = (await client.getJob(jobId, { includeTasks: true })).tasks[0]!.attempts;
        return seen[0]?.lateOutcome !== null ? seen : undefined;
      }, 60_000, 'the late report of attempt 0');
      expect(attempts[0]).toMatchObject({ attemptId: 0, state: 'WORKER_FAILED', isWorkerFailure: true, lateOutcome: { state: 'SUCCEEDED', exitCode: 0 } });
      expect(attempts[1]).toMatchObject({ attemptId: 1, state: 'SUCCEEDED', lateOutcome: null });
      expect((await client.getJob(jobId)).state).toBe('SUCCEEDED');
    } finally {
      for (const pid of [supervisorPid, daemonPid]) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // already gone
        }
      }
    }
  }, 180_000);
});
