import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkerOptions } from '../../src/worker/worker-options.js';

const ENTRY = fileURLToPath(new URL('../../src/worker/main.ts', import.meta.url));
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A worker daemon running as its own OS process via the worker entry script. */
export interface WorkerProcess extends AsyncDisposable {
  readonly child: ChildProcess;
  readonly address: string;
  readonly workerId: string;
  readonly killedLeftovers: string[];
  /** Lines the process printed on stdout (JSON events). */
  readonly events: Record<string, unknown>[];
  /** Sends `signal` and waits for the process to exit; resolves to its exit code (or 128+signal). */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Starts `src/worker/main.ts` with `node --conditions=@marin/source --import tsx` and waits until it serves. */
export async function startWorkerProcess(options: WorkerOptions): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', ENTRY, JSON.stringify(options)], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
  });
  const events: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15))));
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`worker process did not start: ${stderr}`)), 60_000);
    child.stdout?.on('data', (c: Buffer) => {
      buffer += c.toString();
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
        try {
          const event = JSON.parse(line) as Record<string, unknown>;
          events.push(event);
          if (event['event'] === 'ready') {
            clearTimeout(timer);
            resolve(event);
          }
        } catch {
          // not an event line
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited with ${code}: ${stderr}`));
    });
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return {
    child,
    address: ready['address'] as string,
    workerId: ready['workerId'] as string,
    killedLeftovers: ready['killedLeftovers'] as string[],
    events,
    stop,
    [Symbol.asyncDispose]: async () => {
      await stop('SIGKILL');
    },
  };
}

/**
 * Options of a worker under test with short timings (fast registration retries, log flushes and task
 * termination) and a cache of its own at `<cacheRoot>/<workerId>`.
 */
export function fastWorkerOptions(
  cacheRoot: string,
  controllerAddress: string,
  workerId: string,
  extra: Partial<WorkerOptions> = {},
): WorkerOptions {
  return {
    controllerAddress,
    workerId,
    cacheDir: join(cacheRoot, workerId),
    cpuMillicores: 4000,
    memoryBytes: 4 * 1024 ** 3,
    registerRetryInitialMs: 50,
    registerRetryMaxMs: 500,
    logFlushIntervalMs: 50,
    termTimeoutMs: 500,
    ...extra,
  };
}

/** True while `pid` exists and is not a zombie (a killed orphan may wait a while for init to reap it). */
export function isPidRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
