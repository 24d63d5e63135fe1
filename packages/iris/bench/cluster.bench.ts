/**
 * Cluster benchmarks: `iris job run -- true` on a warm local cluster (CLI process start to exit) and
 * 500 trivial jobs through a local cluster of 4 workers. Prints figures; asserts nothing.
 *
 * Run alone: `node --conditions=@marin/source --import tsx bench/cluster.bench.ts`
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startLocalCluster } from '../src/cluster/local-cluster.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What the cluster benchmark measured. */
export interface ClusterBenchResult {
  /**
   * How the CLI was run: `bin/iris.js` on the bundled `dist/iris-cli.js`, on the per-module
   * `dist/cli/index.js` (no bundle), or from source through tsx when dist/ is missing.
   */
  readonly cliMode: 'bundle' | 'dist' | 'source';
  readonly jobRunRuns: number;
  /** 1-minute load average just before the CLI runs (other work on the machine skews the figures). */
  readonly loadAverage: number;
  readonly jobRunP50Ms: number;
  readonly jobRunP90Ms: number;
  /** Same submit → SUCCEEDED path from an in-process client (no CLI process start). */
  readonly inProcessP50Ms: number;
  readonly throughputJobs: number;
  readonly throughputWorkers: number;
  readonly throughputSeconds: number;
  readonly jobsPerSecond: number;
  /** 1-minute load average when the throughput run started. */
  readonly throughputLoadAverage: number;
  /**
   * CPU time (user + system) of the whole run per job: this process (controller, workers) plus every
   * process it started (supervisors, tasks), from cluster start to close. Unlike jobs/s it does not
   * depend on what else the machine runs; `cores * 1000 / cpuMsPerJob` bounds jobs/s on an idle machine.
   */
  readonly cpuMsPerJob: number;
  /** The part of {@link cpuMsPerJob} spent in this process (client, controller, workers). */
  readonly inProcessCpuMsPerJob: number;
  /**
   * CPU per job of the process tree from the first submit to the last job done (no cluster start or
   * close): what bounds jobs/s. `cores * 1000 / runCpuMsPerJob` is the jobs/s of an otherwise idle machine.
   */
  readonly runCpuMsPerJob: number;
  readonly runInProcessCpuMsPerJob: number;
  /** Control ticks the controller ran from the first submit to the last job done. */
  readonly ticks: number;
  /** Task supervisor processes alive at the end of the run (started with the workers or since). */
  readonly supervisors: number;
}

/** CPU time of this process's reaped children (and theirs), from /proc/self/stat, in ms. */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime are fields 16 and 17 of stat(5), i.e. 13 and 14 after the command name.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
}

/** stat(5) fields after the command name: [ppid, utime + stime + cutime + cstime in ms], or null once gone. */
function procTimes(pid: string): [number, number] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [Number(f[1]), ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / CLOCK_TICKS];
  } catch {
    return null;
  }
}

/**
 * CPU time so far of this process and everything it started: its own and its reaped children's
 * times, plus the times of every live descendant (supervisors still running, with the tasks they
 * reaped). Unlike `childrenCpuMs` this counts processes that have not exited yet.
 */
function treeCpuMs(): number {
  const children = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const t = procTimes(name);
    if (t === null) continue;
    cpu.set(Number(name), t[1]);
    children.set(t[0], [...(children.get(t[0]) ?? []), Number(name)]);
  }
  let total = 0;
  const stack = [process.pid];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += cpu.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Live task supervisors this process started. */
function supervisorProcesses(): number {
  let n = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || procTimes(name)?.[0] !== process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('task-supervisor')) n += 1;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

/** USER_HZ; 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] ?? NaN;
}

function runCli(args: string[], env: NodeJS.ProcessEnv, mode: ClusterBenchResult['cliMode']): Promise<number> {
  const argv = mode !== 'source' ? [join(PACKAGE_ROOT, 'bin/iris.js'), ...args] : ['--conditions=@marin/source', '--import', 'tsx', join(PACKAGE_ROOT, 'bin/iris.js'), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: PACKAGE_ROOT, env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** Runs both cluster benchmarks. */
export async function runClusterBench(options: { runs?: number; jobs?: number } = {}): Promise<ClusterBenchResult> {
  const fromEnv = process.env['IRIS_BENCH_CLI_RUNS'];
  // 0 skips the CLI figures (throughput only).
  const runs = options.runs ?? (fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : 15);
  const jobs = options.jobs ?? 500;
  const mode: ClusterBenchResult['cliMode'] = existsSync(join(PACKAGE_ROOT, 'dist/iris-cli.js')) ? 'bundle' : existsSync(join(PACKAGE_ROOT, 'dist/cli/index.js')) ? 'dist' : 'source';
  const home = mkdtempSync(join(tmpdir(), 'iris-bench-home-'));
  try {
    // 1. `iris job run -- true` against a warm local cluster, found through $IRIS_HOME like `cluster start --local`.
    const warm = await startLocalCluster({ workers: 1 });
    const client = warm.client();
    writeFileSync(join(home, 'local-cluster.json'), JSON.stringify({ address: warm.address, pid: process.pid, stateDir: home, startedAtMs: Date.now() }));
    const env = { ...process.env, IRIS_HOME: home, IRIS_CONTROLLER_ADDRESS: '' };
    const cliMs: number[] = [];
    const loadAverage = loadavg()[0] ?? NaN;
    const inProcessMs: number[] = [];
    try {
      if (runs > 0) await runCli(['job', 'run', '--', 'true'], env, mode);
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        const code = await runCli(['job', 'run', '--', 'true'], env, mode);
        if (code !== 0) throw new Error(`iris job run exited ${code}`);
        cliMs.push(performance.now() - start);
      }
      for (let i = 0; i < runs; i++) {
        const start = performance.now();
        const id = await client.launchJob({ name: `/bench/inproc-${i}`, command: ['true'] });
        await client.waitForJob(id);
        inProcessMs.push(performance.now() - start);
      }
    } finally {
      await client.close();
      await warm.close();
    }

    // 2. Throughput: `jobs` trivial jobs through 4 workers.
    const throughputLoad = loadavg()[0] ?? NaN;
    const childCpuBefore = childrenCpuMs();
    const cpuBefore = process.cpuUsage();
    const cluster = await startLocalCluster({ workers: 4, cpuMillicores: 4000, memoryBytes: 4 * 2 ** 30 });
    const c = cluster.client();
    let seconds: number;
    let runCpuMs: number;
    let runOwnCpuMs: number;
    let ticks: number;
    let supervisors: number;
    try {
      const ticksBefore = cluster.controller.tickCount();
      // IRIS_BENCH_PROFILE=<file>: a CPU profile of this process (client, controller, workers) over the run.
      const profilePath = process.env['IRIS_BENCH_PROFILE'];
      const profiler = profilePath ? new Session() : null;
      if (profiler) {
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      }
      const treeBefore = treeCpuMs();
      const ownBefore = process.cpuUsage();
      const start = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < jobs; i += 50) {
        ids.push(
          ...(await Promise.all(
            Array.from({ length: Math.min(50, jobs - i) }, (_, k) => c.launchJob({ name: `/bench/t-${i + k}`, command: ['true'], resources: { cpu: 0.1, memory: '16m' } })),
          )),
        );
      }
      // A lost task must end the bench with its name, not hang it.
      const deadline = Date.now() + 300_000;
      for (;;) {
        const states = await c.getJobStates(ids);
        const unfinished = [...states].filter(([, s]) => s !== 'SUCCEEDED' && s !== 'FAILED' && s !== 'KILLED' && s !== 'WORKER_FAILED');
        if (unfinished.length === 0) break;
        if (Date.now() > deadline) throw new Error(`${unfinished.length} jobs unfinished after 300 s: ${unfinished.slice(0, 5).map(([id, s]) => `${id} ${s}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      seconds = (performance.now() - start) / 1000;
      const own = process.cpuUsage(ownBefore);
      runOwnCpuMs = (own.user + own.system) / 1000;
      runCpuMs = treeCpuMs() - treeBefore;
      if (profiler && profilePath) {
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(profilePath, JSON.stringify(profile));
        profiler.disconnect();
      }
      ticks = cluster.controller.tickCount() - ticksBefore;
      supervisors = supervisorProcesses();
    } finally {
      await c.close();
      await cluster.close();
    }
    const ownCpu = process.cpuUsage(cpuBefore);
    // Supervisors exit once their pipes close; their CPU (and their tasks') counts once they are reaped.
    await new Promise((r) => setTimeout(r, 1000));
    const ownCpuMs = (ownCpu.user + ownCpu.system) / 1000;
    const cpuMs = ownCpuMs + (childrenCpuMs() - childCpuBefore);
    return {
      cliMode: mode,
      jobRunRuns: runs,
      loadAverage,
      jobRunP50Ms: percentile(cliMs, 0.5),
      jobRunP90Ms: percentile(cliMs, 0.9),
      inProcessP50Ms: percentile(inProcessMs, 0.5),
      throughputJobs: jobs,
      throughputWorkers: 4,
      throughputSeconds: seconds,
      jobsPerSecond: jobs / seconds,
      throughputLoadAverage: throughputLoad,
      cpuMsPerJob: cpuMs / jobs,
      inProcessCpuMsPerJob: ownCpuMs / jobs,
      runCpuMsPerJob: runCpuMs / jobs,
      runInProcessCpuMsPerJob: runOwnCpuMs / jobs,
      ticks,
      supervisors,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The figures as printable lines. */
export function formatClusterBench(r: ClusterBenchResult): string {
  return [
    `iris job run -- true, warm local cluster, CLI from ${r.cliMode} (${r.jobRunRuns} runs): p50 ${r.jobRunP50Ms.toFixed(0)} ms, p90 ${r.jobRunP90Ms.toFixed(0)} ms (load average ${r.loadAverage.toFixed(2)}, ${availableParallelism()} cores)`,
    `submit -> SUCCEEDED from an in-process client, \`true\`: p50 ${r.inProcessP50Ms.toFixed(0)} ms`,
    `${r.throughputJobs} trivial jobs through ${r.throughputWorkers} workers: ${r.throughputSeconds.toFixed(1)} s, ${r.jobsPerSecond.toFixed(1)} jobs/s ` +
      `(previously 59.1 with a supervisor started per task, 183.8 before supervisors; load average ${r.throughputLoadAverage.toFixed(2)}), ` +
      `CPU from first submit to last job done ${r.runCpuMsPerJob.toFixed(2)} ms per job, ${r.runInProcessCpuMsPerJob.toFixed(2)} of it in the client, controller and workers ` +
      `(${((availableParallelism() * 1000) / r.runCpuMsPerJob).toFixed(0)} jobs/s if the machine were otherwise idle); ` +
      `with cluster start and close ${r.cpuMsPerJob.toFixed(1)} ms per job (${r.inProcessCpuMsPerJob.toFixed(1)} in process); ` +
      `${r.ticks} control ticks, ${r.supervisors} task supervisors alive at the end`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(formatClusterBench(await runClusterBench()));
}
