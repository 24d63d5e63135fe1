import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isProcessAlive, pollUntil } from '@marin/rigging';
import { createClusterAdminClient } from '../client/cluster-admin-client.js';
import { createIrisClient } from '../client/iris-client.js';
import { formatBytes } from '../core/sizes.js';
import { IrisError } from '../errors.js';
import { startLocalCluster } from '../cluster/local-cluster.js';
import { getTpuTopology } from '../core/tpu-topology.js';
import { controllerAnswers, irisHome, localClusterRecordPath, readLocalClusterRecord, requireController, untilSignal } from './cli-context.js';
import type { LocalClusterRecord } from './cli-context.js';
import type { ClusterConfig } from '../autoscaler/cluster-config.js';
import type { GetAutoscalerStatusResponse } from '../gen/iris/v1/cluster.js';
import type { CliIo } from './cli-context.js';
import { explainControllerError } from './cli-errors.js';
import { formatTable } from './cli-format.js';
import { parseNumberFlag } from './cli-options.js';

/** Flags of `iris cluster start`. */
export interface ClusterStartFlags {
  local?: boolean;
  config?: string;
  workers: string;
  simulateTpu: string[];
  stateDir?: string;
  port: string;
  fresh?: boolean;
  detach?: boolean;
  bundles?: boolean;
  insecure?: boolean;
}

function parseSimulateTpu(values: readonly string[]): { variant: string; slices: number }[] {
  return values.map((v) => {
    const [variant = '', count] = v.split(':');
    return { variant: getTpuTopology(variant).name, slices: count === undefined ? 1 : parseNumberFlag('--simulate-tpu', count, true) };
  });
}

/**
 * `iris cluster start --local`: keeps a local cluster (state in `$IRIS_HOME/local`), records it in
 * `$IRIS_HOME/local-cluster.json`, runs in the foreground until SIGINT/SIGTERM unless `--detach`.
 */
export async function clusterStartCommand(flags: ClusterStartFlags, io: CliIo, signal: AbortSignal, argv: readonly string[]): Promise<number> {
  if (flags.local && flags.config !== undefined) throw new IrisError('IRIS_INVALID_ARGUMENT', 'pass either --local or --config, not both');
  if (!flags.local && flags.config === undefined) throw new IrisError('IRIS_INVALID_ARGUMENT', 'say which cluster to start: --local, or --config <cluster.yaml>');
  if (flags.config !== undefined) {
    // Validate before anything else, so a bad field ends the command at once (also with --detach).
    const { loadClusterConfig } = await import('../autoscaler/cluster-config.js');
    const config = loadClusterConfig(flags.config);
    await refuseRunningLocalCluster(io);
    if (flags.detach) return detach(io, argv);
    return clusterStartFromConfig(config, io, signal, flags.insecure ?? false);
  }
  await refuseRunningLocalCluster(io);
  const workers = parseNumberFlag('--workers', flags.workers, true);
  const simulateTpu = parseSimulateTpu(flags.simulateTpu);
  const port = parseNumberFlag('--port', flags.port, true);
  if (flags.detach) return detach(io, argv);
  const stateDir = flags.stateDir ?? join(irisHome(io.env), 'local');
  const cluster = await startLocalCluster({
    workers,
    simulateTpu,
    stateDir,
    cacheDir: join(stateDir, 'workers'),
    port,
    fresh: flags.fresh ?? false,
    authToken: io.env['IRIS_AUTH_TOKEN'] || undefined,
  });
  const record = { address: cluster.address, pid: process.pid, stateDir, startedAtMs: Date.now(), ...(flags.bundles ? { bundles: true } : {}) };
  return serveRecorded(io, record, cluster, `iris local cluster at ${cluster.address} (${cluster.workers.length} workers, state in ${stateDir})`, signal);
}

/**
 * Records a running cluster in `$IRIS_HOME` (so `iris cluster status` and `iris cluster stop` on this machine
 * find it), prints where it is, serves until `signal`, then removes the record if it is still ours and closes.
 */
async function serveRecorded(
  io: CliIo,
  record: LocalClusterRecord,
  cluster: { readonly dashboardUrl: string | null; close(): Promise<void> },
  banner: string,
  signal: AbortSignal,
): Promise<number> {
  mkdirSync(irisHome(io.env), { recursive: true });
  writeFileSync(localClusterRecordPath(io.env), `${JSON.stringify(record, null, 2)}\n`);
  io.stdout(`${banner}\n`);
  if (cluster.dashboardUrl !== null) io.stdout(`iris dashboard at ${cluster.dashboardUrl}\n`);
  try {
    await untilSignal(signal);
  } finally {
    const current = readLocalClusterRecord(io.env);
    if (current?.pid === process.pid) rmSync(localClusterRecordPath(io.env), { force: true });
    await cluster.close();
  }
  return 0;
}

async function refuseRunningLocalCluster(io: CliIo): Promise<void> {
  const existing = readLocalClusterRecord(io.env);
  if (existing && (await controllerAnswers(existing.address, existing.authToken))) {
    throw new IrisError('IRIS_FAILED_PRECONDITION', `a local cluster is already running at ${existing.address} (pid ${existing.pid}); stop it with \`iris cluster stop\``);
  }
}

/**
 * `iris cluster start --config cluster.yaml`: the controller with its autoscaler, which creates every
 * worker through the scale groups' platforms. Recorded like a local cluster, so `iris cluster status`
 * and `iris cluster stop` on this machine find it; closing deletes the slices, then stops the controller.
 */
async function clusterStartFromConfig(config: ClusterConfig, io: CliIo, signal: AbortSignal, insecure: boolean): Promise<number> {
  const { startCluster } = await import('../cluster/start-cluster.js');
  const authToken = io.env['IRIS_AUTH_TOKEN'] || undefined;
  const cluster = await startCluster(config, { authToken, insecure, warn: (m) => io.stderr(`iris: ${m}\n`) });
  const stateDir = config.controller.state_dir;
  const record = { address: cluster.address, pid: process.pid, stateDir, startedAtMs: Date.now(), bundles: true, ...(authToken ? { authToken } : {}) };
  const groups = config.scale_groups.map((g) => g.name).join(', ') || 'none';
  return serveRecorded(io, record, cluster, `iris cluster at ${cluster.address} (listening on ${cluster.bindAddress}; scale groups: ${groups}; state in ${stateDir})`, signal);
}

async function detach(io: CliIo, argv: readonly string[]): Promise<number> {
  const args = argv.filter((a) => a !== '--detach');
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1] ?? '', ...args], {
    detached: true,
    stdio: 'ignore',
    env: io.env,
  });
  child.unref();
  let up: { address: string; pid: number } | undefined;
  await pollUntil(
    async () => {
      const record = readLocalClusterRecord(io.env);
      if (record !== undefined && record.pid === child.pid && (await controllerAnswers(record.address, record.authToken))) {
        up = record;
        return true;
      }
      return child.exitCode !== null;
    },
    { timeoutMs: 60_000, interval: 200 },
  );
  if (up === undefined) throw new IrisError('IRIS_UNAVAILABLE', 'the detached local cluster did not come up');
  io.stdout(`iris local cluster at ${up.address} (pid ${up.pid})\n`);
  return 0;
}

/**
 * `iris cluster status [--json]`: address, version, job counts, workers with free capacity and, when
 * the controller runs an autoscaler, its scale groups, slices (with lifecycle states) and unmet demand.
 */
export async function clusterStatusCommand(flags: { controller?: string; json?: boolean }, io: CliIo): Promise<number> {
  const resolved = await requireController(flags.controller, io.env);
  const client = createIrisClient({ address: resolved.address, token: resolved.token });
  const admin = createClusterAdminClient({ address: resolved.address, token: resolved.token });
  try {
    const [status, workers, autoscaler] = await Promise.all([client.clusterStatus(), client.listWorkers(), admin.autoscalerStatus()]).catch((e: unknown) => {
      throw explainControllerError(e, resolved.address);
    });
    if (flags.json) {
      io.stdout(`${JSON.stringify({ address: resolved.address, ...status, workers, autoscaler }, null, 2)}\n`);
      return 0;
    }
    const counts = Object.entries(status.jobCounts).map(([k, v]) => `${k}=${v}`).join(' ') || 'none';
    io.stdout(`controller ${resolved.address} version ${status.version}, up since ${new Date(status.startedAtMs).toISOString()}\njobs: ${counts}\n`);
    const rows = workers.map((w) => [
      w.workerId,
      w.address,
      w.healthy ? 'healthy' : 'unreachable',
      `${w.free.cpuMillicores / 1000}/${w.capacity.cpuMillicores / 1000}`,
      `${formatBytes(w.free.memoryBytes)}/${formatBytes(w.capacity.memoryBytes)}`,
      w.capacity.tpuChips > 0 ? `${w.free.tpuChips}/${w.capacity.tpuChips}` : '-',
      String(w.runningAttempts),
      String(w.attributes['device-variant'] ?? w.attributes['device-type'] ?? ''),
    ]);
    io.stdout(`${formatTable(['WORKER', 'ADDRESS', 'HEALTH', 'FREE CPU', 'FREE MEMORY', 'FREE TPU', 'ATTEMPTS', 'DEVICE'], rows)}\n`);
    if (autoscaler.enabled) io.stdout(formatAutoscaler(autoscaler, Date.now()));
    return 0;
  } finally {
    await client.close();
    await admin.close();
  }
}

const ageOf = (sinceMs: number, nowMs: number) => `${Math.max(0, Math.round((nowMs - sinceMs) / 1000))}s`;

function formatAutoscaler(status: GetAutoscalerStatusResponse, nowMs: number): string {
  const groups = status.groups.map((g) => {
    const slices = status.slices.filter((s) => s.group === g.name);
    const live = slices.filter((s) => !['TERMINATED', 'FAILED', 'PREEMPTED'].includes(s.state));
    const ready = live.filter((s) => s.state === 'READY').length;
    const notes = [
      g.churning ? 'churning' : '',
      g.backoffUntilMs > nowMs ? `backoff ${ageOf(nowMs, g.backoffUntilMs)}` : '',
      g.heldBack,
      g.lastError ? `last error: ${g.lastError}` : '',
    ].filter((n) => n !== '');
    return [g.name, g.platform, String(g.priority), `${g.minSlices}/${g.maxSlices}/${g.bufferSlices}`, `${ready}/${live.length}`, String(g.routedDemand), notes.join('; ') || '-'];
  });
  let out = `\nscale groups:\n${formatTable(['GROUP', 'PLATFORM', 'PRIORITY', 'MIN/MAX/BUFFER', 'READY/LIVE', 'DEMAND', 'NOTES'], groups)}\n`;
  const slices = status.slices.map((s) => [s.sliceId, s.group, s.state, ageOf(s.stateSinceMs, nowMs), `${s.workersRegistered}/${s.vmCount}`, s.error || '-']);
  out += slices.length === 0 ? 'slices: none\n' : `\nslices:\n${formatTable(['SLICE', 'GROUP', 'STATE', 'FOR', 'WORKERS', 'ERROR'], slices)}\n`;
  if (status.unmet.length > 0) {
    const unmet = status.unmet.map((u) => [u.jobId, String(u.tasks), u.reason]);
    out += `\nunmet demand:\n${formatTable(['JOB', 'TASKS', 'REASON'], unmet)}\n`;
  }
  return out;
}

/** `iris cluster controller checkpoint`: writes a controller checkpoint to its remote state dir now and prints where. */
export async function clusterCheckpointCommand(flags: { controller?: string; json?: boolean }, io: CliIo): Promise<number> {
  const resolved = await requireController(flags.controller, io.env);
  await using admin = createClusterAdminClient({ address: resolved.address, token: resolved.token });
  const info = await admin.checkpointController().catch((e: unknown) => {
    throw explainControllerError(e, resolved.address);
  });
  if (flags.json) io.stdout(`${JSON.stringify(info, null, 2)}\n`);
  else io.stdout(`checkpoint written to ${info.url} (${formatBytes(info.bytes)})\n`);
  return 0;
}

/** The command that opens a URL here: `$BROWSER`, else the desktop's opener when it is installed. */
function browserCommand(env: NodeJS.ProcessEnv): string | undefined {
  if (env['BROWSER']) return env['BROWSER'];
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? undefined : 'xdg-open';
  if (opener === undefined) return undefined;
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  return dirs.some((d) => existsSync(join(d, opener))) ? opener : undefined;
}

/**
 * `iris cluster dashboard [--no-open]`: prints the controller's dashboard URL (with `?token=` when
 * a shared token is on; the page trades it for a cookie; its `/login` page with per-user keys) and
 * opens it when a browser exists.
 */
export async function clusterDashboardCommand(flags: { controller?: string; open: boolean }, io: CliIo): Promise<number> {
  const resolved = await requireController(flags.controller, io.env);
  const client = createIrisClient({ address: resolved.address, token: resolved.token });
  let base: string;
  let perUserKeys = false;
  try {
    base = (await client.clusterStatus()).dashboardUrl;
    perUserKeys = (await client.whoAmI()).authMode === 'api-keys';
  } catch (e) {
    throw explainControllerError(e, resolved.address);
  } finally {
    await client.close();
  }
  if (base === '') throw new IrisError('IRIS_FAILED_PRECONDITION', `the controller at ${resolved.address} serves no dashboard; start it without \`--dashboard-bind none\``);
  // With per-user keys the browser logs in with the key on the page; a key never goes into a URL.
  const url = perUserKeys ? `${base}login` : resolved.token ? `${base}?token=${encodeURIComponent(resolved.token)}` : base;
  io.stdout(`${url}\n`);
  const browser = flags.open ? browserCommand(io.env) : undefined;
  if (browser !== undefined) {
    const child = spawn(browser, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => io.stderr(`iris: could not start "${browser}"; open the URL above\n`));
    child.unref();
  }
  return 0;
}

/** `iris cluster stop`: SIGTERM the recorded local cluster, wait for it to exit, remove the record. */
export async function clusterStopCommand(io: CliIo): Promise<number> {
  const record = readLocalClusterRecord(io.env);
  if (!record) throw new IrisError('IRIS_NOT_FOUND', `no local cluster recorded in ${localClusterRecordPath(io.env)}`);
  const alive = () => isProcessAlive(record.pid);
  if (alive()) process.kill(record.pid, 'SIGTERM');
  if (!(await pollUntil(() => !alive(), { timeoutMs: 30_000, interval: 100 }))) throw new IrisError('IRIS_DEADLINE_EXCEEDED', `local cluster pid ${record.pid} did not exit within 30 s`);
  rmSync(localClusterRecordPath(io.env), { force: true });
  io.stdout(`stopped local cluster at ${record.address}\n`);
  return 0;
}
