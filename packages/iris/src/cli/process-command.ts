import { writeFileSync } from 'node:fs';
import { createClusterAdminClient } from '../client/cluster-admin-client.js';
import { formatBytes } from '../core/sizes.js';
import { IrisError } from '../errors.js';
import { requireController } from './cli-context.js';
import type { CliIo } from './cli-context.js';
import { explainControllerError } from './cli-errors.js';
import { formatTable } from './cli-format.js';
import { parseNumberFlag } from './cli-options.js';

/** Which process a `process` command asks about: `--worker <id>` or `-t /system/worker/<id>`. */
interface ProcessTargetFlags {
  readonly worker?: string | undefined;
  readonly target?: string | undefined;
}

const WORKER_TARGET = '/system/worker/';

/**
 * The worker id named by `--worker` or `--target` (Marin's `/system/worker/<id>`), or '' for the controller.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for both flags at once or a target that is not a worker or the controller
 */
export function processTargetOf(flags: ProcessTargetFlags): string {
  if (flags.worker !== undefined && flags.target !== undefined) throw new IrisError('IRIS_INVALID_ARGUMENT', 'give --worker or --target, not both');
  if (flags.worker !== undefined) {
    if (flags.worker === '') throw new IrisError('IRIS_INVALID_ARGUMENT', '--worker needs a worker id (see `iris cluster workers`)');
    return flags.worker;
  }
  const t = flags.target;
  if (t === undefined || t === '/system/controller') return '';
  if (t.startsWith(WORKER_TARGET) && t.length > WORKER_TARGET.length) return t.slice(WORKER_TARGET.length);
  throw new IrisError('IRIS_INVALID_ARGUMENT', `--target "${t}": expected /system/worker/<id> or /system/controller (a task's own processes: \`iris task exec\`)`);
}

/** `iris process status [--worker ID] [--json]`: the controller's (or a worker daemon's) resource use, event-loop delay and versions (admins). */
export async function processStatusCommand(flags: { controller?: string; json?: boolean } & ProcessTargetFlags, io: CliIo): Promise<number> {
  const workerId = processTargetOf(flags);
  const resolved = await requireController(flags.controller, io.env);
  await using admin = createClusterAdminClient({ address: resolved.address, token: resolved.token });
  const s = await admin.processStatus({ workerId }).catch((e: unknown) => {
    throw explainControllerError(e, resolved.address);
  });
  if (flags.json) {
    io.stdout(`${JSON.stringify(s, null, 2)}\n`);
    return 0;
  }
  const rows = [
    ['process', `${s.role}${s.workerId === '' ? '' : ` "${s.workerId}"`} pid ${s.pid} on ${s.hostname}`],
    ...(s.role === 'worker' ? [['tasks', `${s.runningTasks} attempt(s) not yet terminal`]] : []),
    ['version', `iris ${s.version}, node ${s.nodeVersion}`],
    ['uptime', `${(s.uptimeMs / 1000).toFixed(0)} s`],
    ['cpu', `${s.cpuUserMs} ms user, ${s.cpuSystemMs} ms system; host load ${s.loadAverage1m.toFixed(2)} on ${s.cpuCount} cores`],
    ['memory', `rss ${formatBytes(s.rssBytes)}, heap ${formatBytes(s.heapUsedBytes)} of ${formatBytes(s.heapTotalBytes)}, external ${formatBytes(s.externalBytes)}`],
    ['event loop', `p99 delay ${s.eventLoopDelayP99Ms.toFixed(1)} ms since the last status`],
  ];
  io.stdout(`${formatTable(['', ''], rows).split('\n').slice(1).join('\n')}\n`);
  return 0;
}

/**
 * `iris process profile [--kind cpu|heap] [--seconds N] [-o FILE]`: a CPU profile (open it in Chrome
 * DevTools or speedscope) or a heap snapshot of the controller, written to FILE (admins).
 */
export async function processProfileCommand(flags: { controller?: string; kind: string; seconds: string; output?: string } & ProcessTargetFlags, io: CliIo): Promise<number> {
  const workerId = processTargetOf(flags);
  if (flags.kind !== 'cpu' && flags.kind !== 'heap') throw new IrisError('IRIS_INVALID_ARGUMENT', `--kind "${flags.kind}": expected cpu or heap`);
  const seconds = parseNumberFlag('--seconds', flags.seconds);
  const file = flags.output ?? `${workerId === '' ? 'controller' : `worker-${workerId.replace(/[^\w.-]/g, '_')}`}-${new Date().toISOString().replace(/[:.]/g, '-')}.${flags.kind === 'cpu' ? 'cpuprofile' : 'heapsnapshot'}`;
  const resolved = await requireController(flags.controller, io.env);
  await using admin = createClusterAdminClient({ address: resolved.address, token: resolved.token });
  if (flags.kind === 'cpu') io.stderr(`profiling the ${workerId === '' ? "controller's" : `worker "${workerId}"'s`} CPU for ${seconds} s…\n`);
  const data = await admin.profileProcess(flags.kind, seconds * 1000, { workerId }).catch((e: unknown) => {
    throw explainControllerError(e, resolved.address);
  });
  writeFileSync(file, data);
  io.stdout(`${file}\n`);
  io.stderr(`wrote ${formatBytes(data.length)} to ${file}\n`);
  return 0;
}

/** `iris process logs [--worker ID] [--tail N] [--json]`: the controller's (or a worker daemon's) own recent log lines (admins). */
export async function processLogsCommand(flags: { controller?: string; tail: string; json?: boolean } & ProcessTargetFlags, io: CliIo): Promise<number> {
  const workerId = processTargetOf(flags);
  const tail = parseNumberFlag('--tail', flags.tail, true);
  const resolved = await requireController(flags.controller, io.env);
  await using admin = createClusterAdminClient({ address: resolved.address, token: resolved.token });
  const lines = await admin.processLogs(tail, { workerId }).catch((e: unknown) => {
    throw explainControllerError(e, resolved.address);
  });
  for (const l of lines) io.stdout(flags.json ? `${JSON.stringify(l)}\n` : `${new Date(l.timestampMs).toISOString()} ${l.level.toUpperCase()} ${l.message}\n`);
  return 0;
}
