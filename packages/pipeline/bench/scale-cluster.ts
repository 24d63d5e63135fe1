// The curation scale bench's cluster side: an embedded Iris cluster whose tasks reach the GCS emulator, what each
// task job used (wall time, attempts and the worker's sampled peak RSS of the task's process group), and a watcher
// that SIGKILLs a running task of a given export: its worker-side supervisor process (the worker loses the task:
// Iris retries it elsewhere) or the task's own process (the task fails: its job, then its step, fail).
import { readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { createIrisBackend } from '@marin/fray';
import type { IrisBackend } from '@marin/fray';
import { startLocalCluster } from '@marin/iris';
import type { IrisClient, LocalClusterHandle } from '@marin/iris';
import { pollUntil } from '@marin/rigging';

/** A local cluster of `workers` CPU workers, its client and a Fray backend running jobs in place. */
export interface ScaleCluster extends AsyncDisposable {
  cluster: LocalClusterHandle;
  client: IrisClient;
  backend: IrisBackend;
}

/** Starts the cluster; every task gets `taskEnv` (the emulator's address) and is sampled every 250 ms. */
export async function startScaleCluster(options: { workers: number; cpuPerWorker: number; memoryBytesPerWorker: number; taskEnv: Record<string, string> }): Promise<ScaleCluster> {
  const cluster = await startLocalCluster({
    workers: options.workers,
    cpuMillicores: options.cpuPerWorker * 1000,
    memoryBytes: options.memoryBytesPerWorker,
    taskEnv: options.taskEnv,
    usageIntervalMs: 250,
    termTimeoutMs: 2000,
  });
  const client = cluster.client();
  const backend = createIrisBackend({ irisClient: cluster.client(), inPlace: true, logger: { info: () => undefined, warn: () => undefined } });
  const close = async (): Promise<void> => {
    await backend.close();
    await client.close();
    await cluster.close();
  };
  return { cluster, client, backend, [Symbol.asyncDispose]: close };
}

/** One task job as the cluster saw it. */
export interface TaskUsage {
  jobId: string;
  /** The job name with its part number and hash replaced, e.g. `minhash-minhash-part-N-of-N`. */
  phase: string;
  state: string;
  seconds: number;
  peakRssBytes: number;
  attempts: number;
}

/** Usage of every job the cluster holds that is not in `seen` (which it then adds them to). */
export async function newTaskUsage(client: IrisClient, seen: Set<string>): Promise<TaskUsage[]> {
  const jobs = [];
  for (let offset = 0; ; offset += 500) {
    const page = await client.listJobs({ offset, limit: 500 });
    jobs.push(...page);
    if (page.length < 500) break;
  }
  const out: TaskUsage[] = [];
  for (const j of jobs) {
    if (seen.has(j.jobId)) continue;
    seen.add(j.jobId);
    const full = await client.getJob(j.jobId, { includeTasks: true });
    const task = full.tasks[0];
    const name = j.jobId.slice(j.jobId.lastIndexOf('/') + 1);
    out.push({
      jobId: j.jobId,
      phase: name.replace(/-[0-9a-f]{8}$/, '').replace(/\d{5}/g, 'N'),
      state: full.state,
      seconds: task && task.finishedAtMs > 0 ? (task.finishedAtMs - task.startedAtMs) / 1000 : 0,
      peakRssBytes: task?.peakMemoryBytes ?? 0,
      attempts: task?.attempts.length ?? 0,
    });
  }
  return out;
}

/** Peak RSS and task seconds per phase. */
export function summarizeUsage(rows: readonly TaskUsage[]): { phase: string; tasks: number; failed: number; retried: number; maxRssBytes: number; maxSeconds: number; sumSeconds: number }[] {
  const by = new Map<string, TaskUsage[]>();
  for (const r of rows) by.set(r.phase, [...(by.get(r.phase) ?? []), r]);
  return [...by].map(([phase, rs]) => ({
    phase,
    tasks: rs.length,
    failed: rs.filter((r) => r.state !== 'SUCCEEDED').length,
    retried: rs.filter((r) => r.attempts > 1).length,
    maxRssBytes: Math.max(...rs.map((r) => r.peakRssBytes)),
    maxSeconds: Math.max(...rs.map((r) => r.seconds)),
    sumSeconds: rs.reduce((s, r) => s + r.seconds, 0),
  }));
}

/** Which process of a task the watcher kills. */
export type KillTarget = 'supervisor' | 'task';

/** What the kill watcher did. */
export interface KillRecord {
  target: KillTarget;
  pid: number;
  exportName: string;
  /** The task's JSON args (which part it was working on). */
  args: unknown;
  jobId: string;
  workerId: string;
  /** How long the task had been seen running when killed. */
  runningSeconds: number;
  /** When, from the watcher's start. */
  atSeconds: number;
}

function procText(pid: string, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

function parentOf(pid: string): string | null {
  const stat = procText(pid, 'stat');
  if (stat === null) return null;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? null;
}

/** True when `ancestor` is `pid`'s parent, grandparent, … within `depth` steps. */
function descendsFrom(pid: string, ancestor: number, depth = 4): boolean {
  let p: string | null = pid;
  for (let i = 0; i < depth && p !== null; i++) {
    p = parentOf(p);
    if (p === String(ancestor)) return true;
  }
  return false;
}

/** Running Fray module-runner tasks of this process's cluster: the task's pid, its supervisor's, and its export. */
function runnerProcesses(): { pid: string; supervisorPid: string; exportName: string; args: unknown; env: Record<string, string> }[] {
  const out = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    const argv = procText(pid, 'cmdline')?.split('\0') ?? [];
    // The task itself (`node … _fray_runner.mjs <args>`), not its supervisor, whose argv carries the task's after its own script.
    const runner = argv.findIndex((a) => a.endsWith('_fray_runner.mjs'));
    if (runner < 0 || argv.some((a) => a.endsWith('task-supervisor.mjs')) || !descendsFrom(pid, process.pid)) continue;
    try {
      const argsFile = argv[runner + 1] ?? '_fray_args.json';
      const spec = JSON.parse(readFileSync(isAbsolute(argsFile) ? argsFile : join(`/proc/${pid}/cwd`, argsFile), 'utf8')) as { exportName: string; args: unknown };
      const env = Object.fromEntries((procText(pid, 'environ') ?? '').split('\0').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
      out.push({ pid, supervisorPid: parentOf(pid) ?? '', exportName: spec.exportName, args: spec.args, env });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/**
 * Watches for a task calling `exportName` and, once one has been seen running for `afterSeconds`, SIGKILLs its
 * supervisor (`target: 'supervisor'`) or its own process (`'task'`). Resolves with what it killed, or null when
 * `signal` aborts first.
 */
export async function killTaskWhenRunning(exportName: string, target: KillTarget, afterSeconds: number, signal: AbortSignal): Promise<KillRecord | null> {
  const start = performance.now();
  const firstSeen = new Map<string, number>();
  let killed: KillRecord | null = null;
  await pollUntil(
    () => {
      if (signal.aborted) return true;
      for (const p of runnerProcesses()) {
        if (p.exportName !== exportName) continue;
        const seen = firstSeen.get(p.pid) ?? performance.now();
        firstSeen.set(p.pid, seen);
        const running = (performance.now() - seen) / 1000;
        if (running < afterSeconds) continue;
        const pid = Number(target === 'task' ? p.pid : p.supervisorPid);
        process.kill(pid, 'SIGKILL');
        killed = {
          target,
          pid,
          exportName,
          args: p.args,
          jobId: p.env['IRIS_JOB_ID'] ?? '?',
          workerId: p.env['IRIS_WORKER_ID'] ?? '?',
          runningSeconds: running,
          atSeconds: (performance.now() - start) / 1000,
        };
        return true;
      }
      return false;
    },
    { interval: 200 },
  );
  return killed;
}
