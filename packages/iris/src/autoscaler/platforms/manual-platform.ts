import { execFile } from 'node:child_process';
import { pollUntil } from '@marin/rigging';
import { IrisError } from '../../errors.js';
import type { Platform, PlatformSlice, SliceRequest } from './platform.js';
import { vmCountOf } from './platform.js';
import { sliceWorkerOptions } from './worker-launch.js';

/** Options of {@link createManualPlatform}: pre-existing hosts reached over SSH. */
export interface ManualPlatformOptions {
  /** Hosts (names or addresses); a CPU slice takes one, a TPU slice `vm_count`. */
  readonly hosts: readonly string[];
  /** SSH user. */
  readonly user: string;
  /** Private key file for `ssh -i`. */
  readonly keyFile: string;
  /** @default 22 */
  readonly port?: number;
  /** Shell command that runs the `iris` CLI on the hosts. @default "iris" */
  readonly irisCommand?: string;
  /** Directory on the hosts for worker caches, logs and pid files. @default "/tmp/iris-worker" */
  readonly remoteDir?: string;
  /** Extra `ssh` options, e.g. `['-o', 'StrictHostKeyChecking=no']`. @default [] */
  readonly sshOptions?: readonly string[];
  /** How long a worker may take to serve after it was started. @default 60000 */
  readonly startTimeoutMs?: number;
}

interface ManualSlice {
  readonly group: string;
  readonly hosts: string[];
}

/** Quotes `s` for a POSIX shell. */
function sh(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The `manual` platform: a slice is worker daemons started over SSH on hosts that already exist (one
 * host for CPU groups, `vm_count` hosts for TPU groups). Each worker runs `<iris_command> worker start`
 * in its own session under `<remote_dir>/<slice id>/`, binding all interfaces and advertising the
 * host's configured name; deleting the slice sends it SIGTERM (SIGKILL after 30 s) and removes the
 * directory. Hosts are handed out from the configured list and return to it when their slice goes.
 */
export function createManualPlatform(options: ManualPlatformOptions): Platform {
  const port = options.port ?? 22;
  const irisCommand = options.irisCommand ?? 'iris';
  const remoteDir = options.remoteDir ?? '/tmp/iris-worker';
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const slices = new Map<string, ManualSlice>();
  const busy = () => new Set([...slices.values()].flatMap((s) => s.hosts));

  const ssh = (host: string, command: string, timeoutMs = 30_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const args = ['-i', options.keyFile, '-p', String(port), '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${Math.ceil(Math.min(timeoutMs, 30_000) / 1000)}`, ...(options.sshOptions ?? []), `${options.user}@${host}`, command];
      execFile('ssh', args, { timeout: timeoutMs, encoding: 'utf8' }, (e, stdout, stderr) => {
        if (e) reject(new IrisError('IRIS_UNAVAILABLE', `ssh ${options.user}@${host}:${port} failed: ${stderr.trim().split('\n').slice(-3).join(' ') || e.message}`, { cause: e }));
        else resolve(stdout);
      });
    });

  const dirOf = (sliceId: string, vm: number) => `${remoteDir}/${sliceId}/${vm}`;

  const startWorker = async (request: SliceRequest, host: string, vm: number): Promise<void> => {
    const dir = dirOf(request.sliceId, vm);
    const o = sliceWorkerOptions(request, vm, `${dir}/cache`);
    const flags = [
      '--controller', o.controllerAddress,
      '--worker-id', o.workerId!,
      '--host', '0.0.0.0',
      '--advertise-host', host,
      '--cache-dir', o.cacheDir,
      '--attributes', Object.entries(o.attributes ?? {}).map(([k, v]) => `${k}=${v}`).join(','),
      ...(o.cpuMillicores !== undefined ? ['--cpu', String(o.cpuMillicores / 1000)] : []),
      ...(o.memoryBytes !== undefined ? ['--memory', String(o.memoryBytes)] : []),
      ...(o.diskBytes !== undefined ? ['--disk', String(o.diskBytes)] : []),
      ...(o.tpu ? ['--tpu', o.tpu.variant, '--tpu-name', o.tpu.name, '--tpu-worker-id', String(o.tpu.workerId)] : []),
    ];
    const env = request.authToken ? `IRIS_AUTH_TOKEN=${sh(request.authToken)} ` : '';
    const worker = `${env}exec ${irisCommand} worker start ${flags.map(sh).join(' ')}`;
    // setsid: the worker outlives this SSH session and leads its own process group, which delete signals.
    await ssh(host, `mkdir -p ${sh(dir)} && cd ${sh(dir)} && { setsid sh -c ${sh(worker)} > worker.log 2>&1 < /dev/null & echo $! > worker.pid; }`);
    const serving = await pollUntil(
      async () => {
        const out = await ssh(host, `cd ${sh(dir)} && if grep -q '^iris worker ' worker.log; then echo ready; elif kill -0 "$(cat worker.pid)" 2>/dev/null; then echo starting; else echo exited; tail -c 500 worker.log; fi`);
        if (out.startsWith('exited')) throw new IrisError('IRIS_UNAVAILABLE', `worker ${o.workerId} on ${host} exited before serving: ${out.slice('exited'.length).trim()}`);
        return out.startsWith('ready');
      },
      { timeoutMs: startTimeoutMs, interval: 250 },
    );
    if (!serving) throw new IrisError('IRIS_DEADLINE_EXCEEDED', `worker ${o.workerId} on ${host} did not serve within ${startTimeoutMs} ms`);
  };

  const stopWorker = async (sliceId: string, host: string, vm: number): Promise<void> => {
    const dir = dirOf(sliceId, vm);
    const script = [
      `cd ${sh(dir)} 2>/dev/null || exit 0`,
      'pid=$(cat worker.pid 2>/dev/null)',
      'if [ -n "$pid" ]; then',
      '  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null',
      '  i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done',
      '  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null',
      'fi',
      `cd / && rm -rf ${sh(dir)}`,
    ].join('\n');
    await ssh(host, script, 60_000);
  };

  const deleteSlice = async (sliceId: string): Promise<void> => {
    const slice = slices.get(sliceId);
    if (!slice) return;
    await Promise.all(slice.hosts.map((h, vm) => stopWorker(sliceId, h, vm)));
    await ssh(slice.hosts[0]!, `rmdir ${sh(`${remoteDir}/${sliceId}`)} 2>/dev/null; true`).catch(() => undefined);
    slices.delete(sliceId);
  };

  const close = async (): Promise<void> => {
    // Nothing held open: each SSH call is its own process. Slices stay up; the autoscaler deletes them.
  };

  return {
    kind: 'manual',
    async createSlice(request: SliceRequest): Promise<void> {
      const vms = vmCountOf(request.group);
      const taken = busy();
      const free = options.hosts.filter((h) => !taken.has(h));
      if (free.length < vms) {
        throw new IrisError('IRIS_INSUFFICIENT_RESOURCES', `manual platform: slice of ${vms} hosts needs more than the ${free.length} free of ${options.hosts.length}`);
      }
      const slice: ManualSlice = { group: request.group.name, hosts: free.slice(0, vms) };
      slices.set(request.sliceId, slice);
      try {
        await Promise.all(slice.hosts.map((h, vm) => startWorker(request, h, vm)));
      } catch (e) {
        await deleteSlice(request.sliceId).catch(() => undefined);
        slices.delete(request.sliceId);
        throw e;
      }
    },
    deleteSlice,
    async listSlices(): Promise<PlatformSlice[]> {
      return [...slices.entries()].map(([sliceId, s]) => ({ sliceId, group: s.group, status: 'running' }));
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
