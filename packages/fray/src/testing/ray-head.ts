import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isProcessGroupAlive, pollUntil, pythonEnvCacheDir, pythonEnvDir, pythonEnvKey, terminateProcessGroup } from '@marin/rigging';
import { FrayError } from '../errors.js';
import { DEFAULT_PYTHON_VERSION } from '../request/python-env-spec.js';
import { findWorkspaceRoot } from '../runner/workspace-root.js';

/** The checked-in lock of the Python environment with `ray[default]`, relative to the workspace root. */
export const RAY_LOCK_PATH = 'packages/fray/python/ray.lock';

/** Options of {@link startRayHead}. */
export interface RayHeadOptions {
  /** Logical CPUs the head offers. @default 2 */
  numCpus?: number;
  /** Extra custom resources, e.g. `{ TPU: 4, 'TPU-v4-8-head': 1 }` to test placement without TPUs. @default {} */
  resources?: Record<string, number>;
  /** Object store size. @default 80 MB */
  objectStoreBytes?: number;
  /** The workspace whose `packages/fray/python/ray.lock` environment is used. @default the git top level */
  workspace?: string;
  /**
   * How long the head may take to answer (Jobs API and dashboard agent). A head starts in ~10 s on a quiet
   * 2-core machine and took over 60 s once while a full test run loaded it. @default 150 s
   */
  startTimeoutMs?: number;
}

/** A running single-node Ray cluster on 127.0.0.1; `close()` stops every process it started. */
export interface RayHead extends AsyncDisposable {
  /** The dashboard (Jobs API) URL: what `createRayClient({ address })` takes. */
  readonly address: string;
  /** The environment's `python` (imports `ray`). */
  readonly python: string;
  /** Env for processes that submit gang jobs or run `ray`: the environment's `bin` first on `PATH`. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const server = createServer();
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? res(address.port) : rej(new Error('no port'))));
    });
  });
}

/** The built environment of the Ray lock, or an error naming the command that builds it. */
function rayEnvDir(workspace: string): string {
  const lockPath = join(workspace, RAY_LOCK_PATH);
  const dir = pythonEnvDir(pythonEnvCacheDir(), DEFAULT_PYTHON_VERSION, pythonEnvKey(readFileSync(lockPath), DEFAULT_PYTHON_VERSION));
  if (!existsSync(join(dir, 'bin', 'ray'))) {
    throw new FrayError('FRAY_BACKEND_UNAVAILABLE', `the Ray environment is not built; run: node tools/python-env/python-env.mjs ${RAY_LOCK_PATH}`, {
      retryable: false,
      details: { envDir: dir },
    });
  }
  return dir;
}

/** Pids of live processes whose environment carries `marker` (everything the head started, however detached). */
function pidsWithMarker(marker: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(marker)) out.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/**
 * Starts a real Ray head (`ray start --head --block`) from the environment of `packages/fray/python/ray.lock`, on
 * 127.0.0.1 with free ports for the GCS, dashboard, client server, agents and metrics, a small object store and
 * fake custom resources for placement tests. Resolves once the Jobs API answers. `close()` ends the head's process
 * group, then any process that still carries the head's marker variable (Ray workers detach), and removes its temp
 * dir; it never touches other Ray clusters on the machine.
 *
 * @throws {FrayError} FRAY_BACKEND_UNAVAILABLE when the environment is not built (the message names the command
 *   that builds it) or the head does not come up within 60 s (its output in `details.output`)
 */
export async function startRayHead(options: RayHeadOptions = {}): Promise<RayHead> {
  const startTimeoutMs = options.startTimeoutMs ?? 150_000;
  const workspace = resolve(options.workspace ?? findWorkspaceRoot());
  const envDir = rayEnvDir(workspace);
  const bin = join(envDir, 'bin');
  // Ray keeps sockets under its temp dir and limits their path length, so it stays short.
  const tempDir = mkdtempSync(join(tmpdir(), 'ray-'));
  const marker = `FRAY_TEST_RAY_HEAD=${tempDir}`;
  const ports: number[] = [];
  for (let i = 0; i < 9; i++) ports.push(await freePort());
  const [gcs, dashboard, client, agentHttp, agentGrpc, metrics, runtimeEnvAgent, nodeManager, objectManager] = ports as [
    number, number, number, number, number, number, number, number, number,
  ];
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    VIRTUAL_ENV: envDir,
    RAY_USAGE_STATS_ENABLED: '0',
    // Ray 2.60 turns token authentication on when it finds a token (`~/.ray/auth_token`, left by any earlier
    // `ray.init()` on the machine), and the Jobs API then refuses our unauthenticated readiness probe: a test head
    // must not depend on the home directory.
    RAY_AUTH_MODE: 'disabled',
    FRAY_TEST_RAY_HEAD: tempDir,
  };
  delete env['RAY_ADDRESS'];
  const args = [
    'start', '--head', '--block', '--disable-usage-stats',
    '--node-ip-address', '127.0.0.1', '--port', String(gcs),
    '--dashboard-host', '127.0.0.1', '--dashboard-port', String(dashboard), '--include-dashboard', 'true',
    '--ray-client-server-port', String(client), '--dashboard-agent-listen-port', String(agentHttp),
    '--dashboard-agent-grpc-port', String(agentGrpc), '--metrics-export-port', String(metrics),
    '--runtime-env-agent-port', String(runtimeEnvAgent), '--node-manager-port', String(nodeManager),
    '--object-manager-port', String(objectManager),
    '--num-cpus', String(options.numCpus ?? 2), '--num-gpus', '0',
    '--resources', JSON.stringify(options.resources ?? {}),
    '--object-store-memory', String(options.objectStoreBytes ?? 80_000_000),
    '--temp-dir', tempDir,
  ];
  const child = spawn(join(bin, 'ray'), args, { env, cwd: tempDir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output = (output + d).slice(-8000)));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output = (output + d).slice(-8000)));
  let exitedEarly = false;
  child.once('exit', () => (exitedEarly = true));
  let stopped = false;

  const close = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    const group = child.pid;
    if (group !== undefined) {
      await terminateProcessGroup(group, { graceMs: 10_000, isGone: () => exitedEarly && !isProcessGroupAlive(group) });
    }
    // Workers and the job supervisors' children can leave the group; the marker finds them.
    await pollUntil(
      () => {
        const left = pidsWithMarker(marker).filter((p) => p !== process.pid);
        for (const pid of left) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // exited meanwhile
          }
        }
        return left.length === 0;
      },
      { timeoutMs: 2_000, interval: 100 },
    );
    rmSync(tempDir, { recursive: true, force: true });
  };

  const address = `http://127.0.0.1:${dashboard}`;
  let ready = false;
  await pollUntil(
    async () => {
      if (exitedEarly) return true;
      try {
        // The Jobs API answers before the head's dashboard agent is up, and a submission until then waits 10 s for it
        // and fails "No available agent" (seen on a loaded machine): ready means both answer.
        const jobs = await fetch(`${address}/api/jobs/`, { signal: AbortSignal.timeout(2000) });
        ready = jobs.ok && (await plainGetStatus(`http://127.0.0.1:${agentHttp}/api/healthz`)) === 200;
      } catch {
        // not up yet
      }
      return ready;
    },
    { timeoutMs: startTimeoutMs, interval: 250 },
  );
  if (!ready) {
    await close();
    throw new FrayError('FRAY_BACKEND_UNAVAILABLE', `the Ray head did not start within ${Math.round(startTimeoutMs / 1000)} s`, { retryable: false, details: { output } });
  }
  return {
    address,
    python: join(bin, 'python'),
    env: { PATH: env['PATH'] as string, VIRTUAL_ENV: envDir },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * The status of a GET sent with node:http, or 0 when nothing answered in 2 s. Not `fetch`: the agent refuses
 * anything carrying `Sec-Fetch-*` headers (it blocks browsers), and undici always sends them.
 */
function plainGetStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpGet(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}
