import { join } from 'node:path';
import { homedir } from 'node:os';
import { startController } from '../cluster/start-controller.js';
import { parseSize } from '../core/sizes.js';
import { IrisError } from '../errors.js';
import { parseAttributeList } from '../worker/worker-attributes.js';
import { startWorker } from '../worker/worker-daemon.js';
import { untilSignal } from './cli-context.js';
import type { CliIo } from './cli-context.js';
import { parseEnvFlags, parseGpuSpec, parseNumberFlag } from './cli-options.js';

/** Flags of `iris worker start`. */
export interface WorkerStartFlags {
  controller?: string;
  port: string;
  host?: string;
  advertiseHost?: string;
  workerId?: string;
  attributes?: string;
  tpu?: string;
  tpuName?: string;
  tpuWorkerId?: string;
  gpu?: string;
  cpu?: string;
  memory?: string;
  disk?: string;
  cacheDir?: string;
  taskEnv: string[];
}

/** `iris worker start`: a worker daemon in the foreground until SIGINT/SIGTERM (which stops its tasks). */
export async function workerStartCommand(flags: WorkerStartFlags, io: CliIo, signal: AbortSignal): Promise<number> {
  const controllerAddress = flags.controller ?? io.env['IRIS_CONTROLLER_ADDRESS'];
  if (!controllerAddress) throw new IrisError('IRIS_INVALID_ARGUMENT', 'worker start needs --controller or IRIS_CONTROLLER_ADDRESS');
  if (flags.tpu && (flags.tpuName === undefined || flags.tpuWorkerId === undefined)) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', '--tpu needs --tpu-name and --tpu-worker-id');
  }
  const worker = await startWorker({
    controllerAddress,
    port: parseNumberFlag('--port', flags.port, true),
    ...(flags.host ? { host: flags.host } : {}),
    ...(flags.advertiseHost ? { advertiseHost: flags.advertiseHost } : {}),
    ...(flags.workerId ? { workerId: flags.workerId } : {}),
    cacheDir: flags.cacheDir ?? join(io.env['IRIS_HOME'] || join(homedir(), '.iris'), 'worker'),
    attributes: parseAttributeList(flags.attributes ?? ''),
    ...(flags.cpu ? { cpuMillicores: Math.round(parseNumberFlag('--cpu', flags.cpu) * 1000) } : {}),
    ...(flags.memory ? { memoryBytes: parseSize(flags.memory, '--memory') } : {}),
    ...(flags.disk ? { diskBytes: parseSize(flags.disk, '--disk') } : {}),
    ...(flags.tpu ? { tpu: { variant: flags.tpu, name: flags.tpuName!, workerId: parseNumberFlag('--tpu-worker-id', flags.tpuWorkerId!, true) } } : {}),
    ...(flags.gpu ? { gpu: parseGpuSpec(flags.gpu) } : {}),
    taskEnv: parseEnvFlags(flags.taskEnv, io.env),
    ...(io.env['IRIS_AUTH_TOKEN'] ? { authToken: io.env['IRIS_AUTH_TOKEN'] } : {}),
  });
  io.stdout(`iris worker ${worker.workerId} at ${worker.address}, controller ${controllerAddress}\n`);
  try {
    await untilSignal(signal);
  } finally {
    await worker.close();
  }
  return 0;
}

/** Flags of `iris controller serve`. */
export interface ControllerServeFlags {
  bind: string;
  dashboardBind: string;
  stateDir?: string;
  fresh?: boolean;
  logArchive?: string;
  auth?: string;
  bootstrapAdmin?: string;
  experimentPrefix?: string[];
  dashboardHost?: string[];
  insecure?: boolean;
}

/**
 * `iris controller serve [--bind HOST:PORT] [--dashboard-bind HOST:PORT] [--state-dir D] [--fresh] [--log-archive URL]
 * [--auth MODE] [--bootstrap-admin USER] [--experiment-prefix P]... [--dashboard-host H]... [--insecure]`.
 */
export async function controllerServeCommand(flags: ControllerServeFlags, io: CliIo, signal: AbortSignal): Promise<number> {
  const authMode = flags.auth ?? (io.env['IRIS_AUTH_MODE'] || undefined);
  if (authMode !== undefined && authMode !== 'shared-token' && authMode !== 'api-keys') throw new IrisError('IRIS_INVALID_ARGUMENT', `--auth "${authMode}" must be shared-token or api-keys`);
  const bootstrapAdmin = flags.bootstrapAdmin ?? (io.env['IRIS_BOOTSTRAP_ADMIN'] || undefined);
  const stateDir = flags.stateDir ?? join(io.env['IRIS_HOME'] || join(homedir(), '.iris'), 'controller');
  const controller = await startController({
    ...(authMode ? { authMode } : {}),
    ...(bootstrapAdmin ? { bootstrapAdmin } : {}),
    bind: flags.bind,
    dashboardBind: flags.dashboardBind === 'none' ? null : flags.dashboardBind,
    stateDir,
    logArchive: flags.logArchive ?? (io.env['IRIS_LOG_ARCHIVE'] || join(stateDir, 'log-archive')),
    fresh: flags.fresh ?? false,
    ...(io.env['IRIS_AUTH_TOKEN'] ? { authToken: io.env['IRIS_AUTH_TOKEN'] } : {}),
    ...(flags.experimentPrefix && flags.experimentPrefix.length > 0 ? { experimentPrefixes: flags.experimentPrefix } : {}),
    ...(flags.dashboardHost && flags.dashboardHost.length > 0 ? { dashboardHosts: flags.dashboardHost } : {}),
    insecure: flags.insecure ?? false,
    warn: (m) => io.stderr(`[iris controller] ${m}\n`),
  });
  io.stdout(`iris controller at ${controller.address} (listening on ${controller.bindAddress})\n`);
  if (controller.dashboardUrl !== null) io.stdout(`iris dashboard at ${controller.dashboardUrl} (listening on ${controller.dashboardBindAddress})\n`);
  try {
    await untilSignal(signal);
  } finally {
    await controller.close();
  }
  return 0;
}
