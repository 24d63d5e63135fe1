import { defaultSleep } from '@marin/rigging';
import { workspaceRoot } from '../client/iris-client.js';
import type { IrisClient } from '../client/iris-client.js';
import type { JobSpec } from '../client/job-spec.js';
import type { JobInfo } from '../core/job-types.js';
import { TERMINAL_JOB_STATES } from '../core/job-types.js';
import { IrisError } from '../errors.js';
import type { LocalClusterHandle } from '../cluster/local-cluster.js';
import { getTpuTopology } from '../core/tpu-topology.js';
import type { TpuTopology } from '../core/tpu-topology.js';
import { connectController } from './cli-context.js';
import type { CliIo } from './cli-context.js';
import { explainControllerError } from './cli-errors.js';
import { formatLogLine } from './cli-format.js';
import { defaultJobName, parseEnvFlags, parseGpuSpec, parseNumberFlag, parsePriorityFlag } from './cli-options.js';

/** Flags of `iris job run`, as commander hands them over. */
export interface JobRunFlags {
  controller?: string;
  cpu: string;
  memory: string;
  disk: string;
  tpu?: string;
  gpu?: string;
  replicas?: string;
  maxRetries: string;
  timeout: string;
  env: string[];
  extra: string[];
  region: string[];
  zone?: string;
  jobName?: string;
  user?: string;
  priority?: string;
  wait: boolean;
  terminateOnExit: boolean;
  json?: boolean;
}

/**
 * What `iris job run --json` prints on stdout, as one JSON document once the command ends (logs go
 * to stderr). `exitCode` is the job's (the first failing task's), null while it has none.
 */
export interface JobRunResult {
  readonly jobId: string;
  readonly state: JobInfo['state'];
  readonly exitCode: number | null;
  readonly error: string;
  readonly tasks: readonly { readonly index: number; readonly state: string; readonly exitCode: number | null }[];
}

function runResult(job: JobInfo): JobRunResult {
  const finished = (state: string) => state === 'SUCCEEDED' || state === 'FAILED';
  return {
    jobId: job.jobId,
    state: job.state,
    exitCode: finished(job.state) ? job.exitCode : null,
    error: job.error || job.pendingReason,
    tasks: job.tasks.map((t) => ({ index: t.taskIndex, state: t.state, exitCode: finished(t.state) ? t.exitCode : null })),
  };
}

/**
 * Builds the job spec of `iris job run` from its flags and command; `tpu` is the `--tpu` flag already
 * looked up in the topology table (by the caller, once).
 */
export function jobRunSpec(flags: JobRunFlags, command: readonly string[], context: { env: NodeJS.ProcessEnv; tpu: TpuTopology | undefined }): JobSpec {
  const { env, tpu } = context;
  const gpu = flags.gpu ? parseGpuSpec(flags.gpu) : undefined;
  const constraints: NonNullable<JobSpec['constraints']> = [];
  if (flags.region.length === 1) constraints.push({ key: 'region', op: 'EQ', value: flags.region[0] });
  if (flags.region.length > 1) constraints.push({ key: 'region', op: 'IN', values: flags.region });
  if (flags.zone) constraints.push({ key: 'zone', op: 'EQ', value: flags.zone });
  return {
    name: flags.jobName ?? defaultJobName(command),
    ...(flags.user ? { user: flags.user } : {}),
    ...(flags.priority === undefined ? {} : { priority: parsePriorityFlag('--priority', flags.priority, true) }),
    command: [...command],
    resources: {
      cpu: parseNumberFlag('--cpu', flags.cpu),
      memory: flags.memory,
      disk: flags.disk,
      ...(tpu ? { device: { kind: 'tpu' as const, variant: tpu.name } } : gpu ? { device: { kind: 'gpu' as const, ...gpu } } : {}),
    },
    ...(flags.replicas === undefined ? {} : { replicas: parseNumberFlag('--replicas', flags.replicas, true) }),
    maxRetriesFailure: parseNumberFlag('--max-retries', flags.maxRetries, true),
    timeoutMs: Math.round(parseNumberFlag('--timeout', flags.timeout) * 1000),
    env: parseEnvFlags(flags.env, env),
    dependencyGroups: flags.extra,
    constraints,
    submitArgv: ['iris', 'job', 'run', '--', ...command],
  };
}

/**
 * `iris job run`: submits, streams logs, returns 0 on SUCCEEDED, 1 otherwise, 130 on Ctrl-C. With
 * no controller configured it starts an embedded ephemeral cluster and runs the job in place.
 */
export async function runJobCommand(flags: JobRunFlags, command: readonly string[], io: CliIo, signal: AbortSignal): Promise<number> {
  // The --tpu flag is looked up in the table here, once: the spec and the embedded cluster use the row.
  const tpu = flags.tpu ? getTpuTopology(flags.tpu) : undefined;
  const spec = jobRunSpec(flags, command, { env: io.env, tpu });
  const inTask = Boolean(io.env['IRIS_TASK_ID']);
  const connection = await connectController(flags.controller, io.env);
  const resolved = connection?.controller;
  let cluster: LocalClusterHandle | undefined;
  let client: IrisClient;
  let bundle: 'workspace' | null | undefined;
  if (connection) {
    client = connection.client;
    if (connection.controller.inPlace && !inTask) {
      spec.inPlaceWorkdir = process.cwd();
      bundle = null;
    } else if (!inTask) {
      bundle = 'workspace';
      const { buildSetupCommands } = await import('../core/setup-commands.js');
      spec.entrypoint = { run: spec.command!, setup: buildSetupCommands({ bundleRoot: workspaceRoot(), dependencyGroups: spec.dependencyGroups ?? [] }) };
      delete spec.command;
    }
  } else {
    if (!flags.wait) {
      io.stderr('iris: --no-wait needs a running controller (the embedded cluster stops when this command exits)\n');
      return 2;
    }
    if (tpu) io.stderr(`iris: starting an embedded cluster with one simulated ${tpu.name} slice (${tpu.vmCount} workers)\n`);
    const { startLocalCluster } = await import('../cluster/local-cluster.js');
    cluster = await startLocalCluster({ workers: 1, simulateTpu: tpu ? [{ variant: tpu.name, slices: 1 }] : [], termTimeoutMs: 2000 });
    client = cluster.client();
    spec.inPlaceWorkdir = process.cwd();
    bundle = null;
  }
  // With --json, stdout carries only the result document; what people read goes to stderr.
  const out: CliIo = flags.json ? { ...io, stdout: io.stderr } : io;
  try {
    if (flags.region.length > 0) await warnUnknownRegions(client, flags.region, out);
    const jobId = await client.launchJob(spec, { bundle });
    out.stdout(`${jobId}\n`);
    // The embedded cluster stops with this command, and its dashboard with it: say so, so the link is not
    // mistaken for one that still answers after the job ends.
    if (cluster?.dashboardUrl) io.stderr(`iris: dashboard ${cluster.dashboardUrl}#/job?id=${encodeURIComponent(jobId)} (live until this command exits)\n`);
    let code = 0;
    if (flags.wait) code = await followToEnd(client, jobId, out, signal, { terminateOnExit: flags.terminateOnExit, failFastUnschedulable: cluster !== undefined || resolved?.source === 'local' });
    if (flags.json) io.stdout(`${JSON.stringify(runResult(await client.getJob(jobId, { includeTasks: true })))}\n`);
    return code;
  } catch (e) {
    throw resolved ? explainControllerError(e, resolved.address) : e;
  } finally {
    await client.close();
    await cluster?.close();
  }
}

async function followToEnd(
  client: IrisClient,
  jobId: string,
  io: CliIo,
  signal: AbortSignal,
  opts: { terminateOnExit: boolean; failFastUnschedulable: boolean },
): Promise<number> {
  const stop = new AbortController();
  let interrupted = false;
  let unschedulable: JobInfo | undefined;
  const onInterrupt = () => {
    interrupted = true;
    stop.abort();
  };
  signal.addEventListener('abort', onInterrupt, { once: true });
  // Watch the first scheduling passes: an impossible job on an embedded cluster would wait forever.
  const watcher = opts.failFastUnschedulable
    ? (async () => {
        while (!stop.signal.aborted) {
          await defaultSleep(250, stop.signal).catch(() => undefined);
          if (stop.signal.aborted) return;
          const job = await client.getJob(jobId).catch(() => undefined);
          if (job && job.state === 'PENDING' && !job.canBeScheduled) {
            unschedulable = job;
            stop.abort();
            return;
          }
          if (job && job.state !== 'PENDING') return;
        }
      })()
    : Promise.resolve();
  try {
    for await (const ev of client.followLogs({ jobId }, { signal: stop.signal })) {
      for (const e of ev.entries) {
        const line = `${formatLogLine(jobId, e)}\n`;
        if (e.source === 'stderr') io.stderr(line);
        else io.stdout(line);
      }
      if (ev.done) break;
    }
  } catch (e) {
    if (!stop.signal.aborted) throw e;
  } finally {
    stop.abort();
    signal.removeEventListener('abort', onInterrupt);
    await watcher;
  }
  if (interrupted) {
    if (opts.terminateOnExit) {
      await client.terminateJob(jobId, { includeChildren: true });
      await client.waitForJob(jobId, { timeoutMs: 30_000 }).catch(() => undefined);
      io.stderr(`iris: interrupted; job ${jobId} and its children were stopped\n`);
    } else {
      io.stderr(`iris: detached; job ${jobId} keeps running (stop it with \`iris job stop ${jobId}\`)\n`);
    }
    return 130;
  }
  if (unschedulable) {
    io.stderr(`iris: job ${jobId} cannot be scheduled: ${unschedulable.pendingReason}\n`);
    await client.terminateJob(jobId).catch(() => undefined);
    return 1;
  }
  const job = await client.getJob(jobId, { includeTasks: true });
  if (!TERMINAL_JOB_STATES.has(job.state)) throw new IrisError('IRIS_INTERNAL', `log stream of ${jobId} ended while the job is ${job.state}`);
  io.stdout(`${jobId} ${job.state}${job.error ? `: ${job.error}` : ''}\n`);
  return job.state === 'SUCCEEDED' ? 0 : 1;
}

async function warnUnknownRegions(client: IrisClient, regions: readonly string[], io: CliIo): Promise<void> {
  const workers = await client.listWorkers();
  const known = new Set(workers.map((w) => w.attributes['region']).filter((r) => r !== undefined).map(String));
  for (const r of regions) {
    if (!known.has(r)) io.stderr(`iris: warning: no registered worker advertises region "${r}"\n`);
  }
}
