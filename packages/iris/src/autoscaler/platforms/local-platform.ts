import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { IrisError } from '../../errors.js';
import type { Platform, PlatformSlice, SliceRequest } from './platform.js';
import { vmCountOf } from './platform.js';
import { sliceWorkerOptions, workerEntry } from './worker-launch.js';

/** Options of {@link createLocalPlatform}. */
export interface LocalPlatformOptions {
  /** Root of the workers' cache dirs (one per worker, removed with the slice). */
  readonly workDir: string;
  /** Worker processes over all slices; a create beyond it fails with IRIS_INSUFFICIENT_RESOURCES. @default 64 */
  readonly maxWorkers?: number;
  /** How long a worker process may take to serve. @default 60000 */
  readonly startTimeoutMs?: number;
}

interface LocalSlice {
  readonly group: string;
  readonly processes: ChildProcess[];
  failed: boolean;
}

function waitReady(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(() => done(new IrisError('IRIS_DEADLINE_EXCEEDED', `worker process ${child.pid} did not serve within ${timeoutMs} ms`)), timeoutMs);
    const onExit = (code: number | null) => done(new IrisError('IRIS_UNAVAILABLE', `worker process exited with ${code} before serving: ${stderr.slice(-500)}`));
    const done = (error?: Error) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout?.removeAllListeners('data');
      child.stderr?.removeAllListeners('data');
      child.stdout?.resume();
      child.stderr?.resume();
      if (error) reject(error);
      else resolve();
    };
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout?.on('data', (c: Buffer) => {
      buffer += c.toString();
      if (buffer.includes('"event":"ready"')) done();
    });
    child.once('exit', onExit);
  });
}

function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The `local` platform: a slice is `vm_count` worker daemon processes on this machine (one for CPU
 * groups), started from the worker entry with the group's resources. TPU groups give each process
 * the simulated TPU attributes of its VM (`tpu-name` = slice id, `tpu-worker-id` = VM index), so
 * gangs, placement and `TPU_*` variables behave as on a real slice.
 */
export function createLocalPlatform(options: LocalPlatformOptions): Platform {
  const maxWorkers = options.maxWorkers ?? 64;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const slices = new Map<string, LocalSlice>();
  const entry = workerEntry();
  const running = () => [...slices.values()].reduce((n, s) => n + s.processes.length, 0);

  const deleteSlice = async (sliceId: string): Promise<void> => {
    const slice = slices.get(sliceId);
    if (!slice) return;
    await Promise.all(slice.processes.map((p) => stopProcess(p, 30_000)));
    slices.delete(sliceId);
    rmSync(join(options.workDir, sliceId), { recursive: true, force: true });
  };

  const close = async (): Promise<void> => {
    // Slices outlive the controller only on real platforms; local worker processes are this process's children.
    await Promise.all([...slices.keys()].map((id) => deleteSlice(id)));
  };

  return {
    kind: 'local',
    async createSlice(request: SliceRequest): Promise<void> {
      const vms = vmCountOf(request.group);
      if (running() + vms > maxWorkers) {
        throw new IrisError('IRIS_INSUFFICIENT_RESOURCES', `local platform quota: ${vms} more workers would exceed max_workers ${maxWorkers} (${running()} running)`);
      }
      const slice: LocalSlice = { group: request.group.name, processes: [], failed: false };
      slices.set(request.sliceId, slice);
      try {
        for (let vm = 0; vm < vms; vm++) {
          const cacheDir = join(options.workDir, request.sliceId, String(vm));
          mkdirSync(cacheDir, { recursive: true });
          const json = JSON.stringify(sliceWorkerOptions(request, vm, cacheDir));
          const args = entry.fromSource ? ['--conditions=@marin/source', '--import', 'tsx', entry.path, json] : [entry.path, json];
          const child = spawn(process.execPath, args, { cwd: entry.packageRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
          child.once('exit', () => {
            if (slices.get(request.sliceId) === slice) slice.failed = true;
          });
          slice.processes.push(child);
        }
        await Promise.all(slice.processes.map((p) => waitReady(p, startTimeoutMs)));
      } catch (e) {
        await deleteSlice(request.sliceId);
        throw e;
      }
    },
    deleteSlice,
    async listSlices(): Promise<PlatformSlice[]> {
      return [...slices.entries()].map(([sliceId, s]) => ({ sliceId, group: s.group, status: s.failed ? 'failed' : 'running' }));
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
