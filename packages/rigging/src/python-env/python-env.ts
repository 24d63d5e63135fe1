import { createHash, randomBytes } from 'node:crypto';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RiggingError } from '../errors.js';
import { createLease } from '../locks/distributed-lease.js';
import { leaseTimings } from '../locks/lease-timings.js';
import type { LeaseTimings } from '../locks/lease-timings.js';
import { defaultWorkerId } from '../locks/worker-id.js';
import { findPythonInterpreter } from './find-python.js';
import { findUv, runLogged } from './uv-command.js';

/** Options of {@link ensurePythonEnv}. Give the lock as `lockPath` or as its content in `lock`. */
export interface PythonEnvOptions {
  /** A requirements lock file with exact pins (`name==version` lines), as `uv pip compile` writes it. */
  lockPath?: string;
  /** The lock's content, instead of `lockPath` (a job spec carries it, so a remote worker needs no shared disk). */
  lock?: string | Uint8Array;
  /** How logs name the lock. @default lockPath, else "requirements lock" */
  lockName?: string;
  /** The interpreter version uv provides for the environment (`3`, `3.11` or `3.11.7`). @default '3.11' */
  pythonVersion?: string;
  /** Where environments live, one directory per key. @default pythonEnvCacheDir() */
  cacheDir?: string;
  /** Receives build progress, one line at a time. @default nothing */
  log?: (line: string) => void;
  /** Aborting stops a running build (its staging directory is removed) or a wait for another builder. */
  signal?: AbortSignal;
  /** Heartbeat and staleness of the build lease (a crashed builder's lease is taken over after `timeoutS`). @default leaseTimings() */
  timings?: LeaseTimings;
  /** How often a waiter checks whether another process finished the build. @default 500 */
  pollMs?: number;
}

/** A ready Python environment. */
export interface PythonEnv {
  /** Content key: a hash of the lock's bytes and the Python version. */
  key: string;
  /** The environment's directory (a relocatable virtualenv). */
  dir: string;
  /** Its interpreter, `<dir>/bin/python`. */
  python: string;
  /** True when this call built it, false when it was already there (or another caller built it meanwhile). */
  built: boolean;
}

/** The file whose presence marks an environment complete; it is written last, before the rename into place. */
export const PYTHON_ENV_MARKER = '.marin-env.json';
/** The copy of the lock kept inside each environment (what `uv pip sync` installed). */
export const PYTHON_ENV_LOCK_FILE = 'marin-requirements.lock';
const PYTHON_VERSION = /^\d+(\.\d+){0,2}$/;

/** Builds of this process, by environment directory: a second caller joins instead of polling the lease. */
const inFlight = new Map<string, Promise<PythonEnv>>();

/** `$MARIN_PYTHON_ENV_CACHE`, else `$XDG_CACHE_HOME/marin/python-envs`, else `~/.cache/marin/python-envs`. */
export function pythonEnvCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env['MARIN_PYTHON_ENV_CACHE'];
  if (explicit !== undefined && explicit !== '') return resolve(explicit);
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.cache'), 'marin', 'python-envs');
}

/** The environment key of a lock's content: 16 hex digits of sha256 over the Python version and the bytes. */
export function pythonEnvKey(lockBytes: Uint8Array | string, pythonVersion: string): string {
  return createHash('sha256').update(`marin-python-env/1\npython ${pythonVersion}\n`).update(lockBytes).digest('hex').slice(0, 16);
}

/** The directory of a key's environment under `cacheDir`: `<cacheDir>/py<version>-<key>`. */
export function pythonEnvDir(cacheDir: string, pythonVersion: string, key: string): string {
  return join(cacheDir, `py${pythonVersion}-${key}`);
}

/**
 * Returns the Python environment of a lock, building it with `uv` the first time: one build per key
 * even across processes (a lease file beside the environment; callers in one process share the build),
 * built in a staging directory and renamed into place only when complete, so a crashed build leaves
 * nothing that looks ready. The warm path is one hash of the lock and one `access()` of the marker.
 * `uv` is taken from `PATH`, else from `python3 -m uv`, else installed with `python3 -m pip install uv`.
 *
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT if neither or both of `lockPath` and `lock` are given,
 *   the lock is empty, or `pythonVersion` is not `N`, `N.N` or `N.N.N`
 * @throws {RiggingError} RIGGING_NOT_FOUND if the lock file does not exist
 * @throws {RiggingError} RIGGING_ENV_BUILD_FAILED if uv fails; the message ends with uv's own error text,
 *   `details.errorText` holds that text alone and `details.output` the last lines of its output
 */
export async function ensurePythonEnv(options: PythonEnvOptions): Promise<PythonEnv> {
  const pythonVersion = options.pythonVersion ?? '3.11';
  if (!PYTHON_VERSION.test(pythonVersion)) {
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `Python version "${pythonVersion}" must look like 3, 3.11 or 3.11.7`, {
      details: { pythonVersion },
    });
  }
  const lockBytes = await readLock(options);
  const cacheDir = options.cacheDir ?? pythonEnvCacheDir();
  const key = pythonEnvKey(lockBytes, pythonVersion);
  const dir = pythonEnvDir(cacheDir, pythonVersion, key);
  const ready: PythonEnv = { key, dir, python: join(dir, 'bin', 'python'), built: false };
  if (await isComplete(dir)) return ready;

  const log = options.log ?? (() => undefined);
  for (;;) {
    const running = inFlight.get(dir);
    if (running === undefined) break;
    log(`waiting for Python environment ${key}, which this process is building`);
    // A failed or aborted build of another caller is retried by this one (its own signal decides).
    const finished = await abortable(running.then(() => true, () => false), options.signal);
    if (finished && (await isComplete(dir))) return ready;
  }
  const build = buildOnce({ ...options, lockBytes, pythonVersion, cacheDir, key, dir, ready, log });
  inFlight.set(dir, build);
  try {
    return await build;
  } finally {
    inFlight.delete(dir);
  }
}

interface BuildPlan extends PythonEnvOptions {
  lockBytes: Buffer;
  pythonVersion: string;
  cacheDir: string;
  key: string;
  dir: string;
  ready: PythonEnv;
  log: (line: string) => void;
}

async function buildOnce(plan: BuildPlan): Promise<PythonEnv> {
  const { key, dir, ready, log, signal } = plan;
  await mkdir(plan.cacheDir, { recursive: true });
  const timings = plan.timings ?? leaseTimings();
  await using lease = createLease(`${dir}.lock`, { workerId: defaultWorkerId(), timings, warn: log });
  let announcedWait = false;
  while (!(await lease.tryAcquire())) {
    if (await isComplete(dir)) return ready;
    if (!announcedWait) log(`waiting for another process building Python environment ${key}`);
    announcedWait = true;
    await sleep(plan.pollMs ?? 500, undefined, { signal });
  }
  if (await isComplete(dir)) return ready;

  const heartbeat = setInterval(() => void lease.refresh().catch(() => undefined), timings.heartbeatS * 1000);
  const staging = `${dir}.tmp-${randomBytes(4).toString('hex')}`;
  const lockName = plan.lockName ?? plan.lockPath ?? 'requirements lock';
  try {
    const started = Date.now();
    log(`building Python ${plan.pythonVersion} environment ${key} from ${lockName}`);
    const uv = await findUv(log, signal);
    const interpreter = (await findPythonInterpreter(plan.pythonVersion)) ?? plan.pythonVersion;
    await runLogged([...uv, 'venv', '--relocatable', '--quiet', '--python', interpreter, staging], log, signal);
    const lockCopy = join(staging, PYTHON_ENV_LOCK_FILE);
    await writeFile(lockCopy, plan.lockBytes);
    await runLogged([...uv, 'pip', 'sync', '--python', join(staging, 'bin', 'python'), lockCopy], log, signal);
    const marker = { key, python_version: plan.pythonVersion, lock: lockName, created: new Date().toISOString() };
    await writeFile(join(staging, PYTHON_ENV_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    try {
      await rename(staging, dir);
    } catch (e) {
      // Our lease went stale mid-build and another builder finished first: its environment is as good.
      if (await isComplete(dir)) return ready;
      throw e;
    }
    log(`Python environment ${key} ready at ${dir} (built in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return { ...ready, built: true };
  } finally {
    clearInterval(heartbeat);
    await rm(staging, { recursive: true, force: true });
  }
}

async function readLock(options: PythonEnvOptions): Promise<Buffer> {
  if ((options.lockPath === undefined) === (options.lock === undefined)) {
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', 'give exactly one of lockPath and lock to ensurePythonEnv');
  }
  let bytes: Buffer;
  if (options.lock !== undefined) {
    bytes = typeof options.lock === 'string' ? Buffer.from(options.lock, 'utf8') : Buffer.from(options.lock);
  } else {
    const lockPath = options.lockPath as string;
    try {
      bytes = await readFile(lockPath);
    } catch (cause) {
      throw new RiggingError('RIGGING_NOT_FOUND', `cannot read the Python requirements lock "${lockPath}"`, {
        cause,
        details: { path: lockPath },
      });
    }
  }
  if (bytes.toString('utf8').trim() === '') {
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `the Python requirements lock "${options.lockName ?? options.lockPath ?? 'lock'}" is empty`);
  }
  return bytes;
}

async function isComplete(dir: string): Promise<boolean> {
  try {
    await access(join(dir, PYTHON_ENV_MARKER));
    return true;
  } catch {
    return false;
  }
}

/** `promise`, or a rejection with the signal's reason once `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolvePromise, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolvePromise, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
