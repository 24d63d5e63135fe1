import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { RiggingError } from '../errors.js';

const run = promisify(execFile);

/** The emulator version the tests are written against. */
export const FAKE_GCS_VERSION = 'v1.56.1';

/** A running fake-gcs-server; disposing it kills the process. */
export interface FakeGcsHandle extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`: pass it as `STORAGE_EMULATOR_HOST` or `createGcsClient({ endpoint })`. */
  readonly endpoint: string;
  /** Creates a bucket through the emulator's JSON API (idempotent). */
  createBucket(name: string): Promise<void>;
  /** Creates a bucket named `<prefix>-<8 hex digits>` and returns that name. */
  createUniqueBucket(prefix: string): Promise<string>;
  /** Kills the emulator, waits for it to exit and restores what `setEnv` replaced (idempotent). */
  close(): Promise<void>;
}

/** Options of {@link startFakeGcs}. */
export interface StartFakeGcsOptions {
  /** Path of the binary. @default $(go env GOPATH)/bin/fake-gcs-server, installed with `go install` when missing */
  binary?: string;
  /** How long to wait for the emulator to answer. @default 60_000 */
  startTimeoutMs?: number;
  /**
   * Sets `STORAGE_EMULATOR_HOST` to the endpoint in `process.env` once the emulator answers, so this
   * process and every child it spawns afterwards talk to it; `close()` restores the previous value
   * (deletes it if it was unset). Set it before the first `gs://` use: the process-wide client keeps
   * the endpoint it was created with.
   * @default false
   */
  setEnv?: boolean;
  /**
   * Keeps objects as files under this directory (fake-gcs-server's `filesystem` backend) instead of in the
   * emulator's memory: for data sets of gigabytes. The directory is created when missing and left in place.
   * @default undefined (memory backend)
   */
  storageDir?: string;
}

const EMULATOR_ENV = 'STORAGE_EMULATOR_HOST';

/** Sets `key` in `process.env` and returns a function putting back what was there. */
function replaceEnv(key: string, value: string): () => void {
  const saved = process.env[key];
  process.env[key] = value;
  return () => {
    if (saved === undefined) delete process.env[key];
    else process.env[key] = saved;
  };
}

async function goBinDir(): Promise<string> {
  try {
    const { stdout } = await run('go', ['env', 'GOPATH']);
    const gopath = stdout.trim().split(':')[0];
    if (gopath) return join(gopath, 'bin');
  } catch {
    // no go on PATH: fall through to the default GOPATH
  }
  return join(homedir(), 'go', 'bin');
}

/**
 * Finds the fake-gcs-server binary, running `go install github.com/fsouza/fake-gcs-server@v1.56.1`
 * when it is missing.
 * @throws {RiggingError} RIGGING_UNAVAILABLE saying how to install it when that fails.
 */
export async function ensureFakeGcsBinary(binary?: string): Promise<string> {
  if (binary !== undefined) return binary;
  const path = join(await goBinDir(), 'fake-gcs-server');
  if (existsSync(path)) return path;
  const install = `go install github.com/fsouza/fake-gcs-server@${FAKE_GCS_VERSION}`;
  try {
    await run('go', ['install', `github.com/fsouza/fake-gcs-server@${FAKE_GCS_VERSION}`], { timeout: 600_000 });
  } catch (err) {
    throw new RiggingError(
      'RIGGING_UNAVAILABLE',
      `fake-gcs-server is not installed and \`${install}\` failed; install Go and run that command, then make sure "${path}" exists`,
      { cause: err, retryable: false, details: { path, operation: 'install', install } },
    );
  }
  if (!existsSync(path)) {
    throw new RiggingError('RIGGING_UNAVAILABLE', `go install succeeded but "${path}" is missing; check GOBIN`, {
      retryable: false,
      details: { path, operation: 'install' },
    });
  }
  return path;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts fake-gcs-server (memory backend unless `storageDir`, plain http) on a free port of 127.0.0.1 and waits until it
 * answers `GET /storage/v1/b`.
 *
 * @throws {RiggingError} RIGGING_UNAVAILABLE if it cannot be installed or does not come up.
 * @example
 * await using gcs = await startFakeGcs({ setEnv: true });
 * const prefix = `gs://${await gcs.createUniqueBucket('marin-ci')}/marin`;
 */
export async function startFakeGcs(opts: StartFakeGcsOptions = {}): Promise<FakeGcsHandle> {
  const binary = await ensureFakeGcsBinary(opts.binary);
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  if (opts.storageDir !== undefined) await mkdir(opts.storageDir, { recursive: true });
  const backend = opts.storageDir === undefined ? ['-backend', 'memory'] : ['-backend', 'filesystem', '-filesystem-root', opts.storageDir];
  const child: ChildProcess = spawn(
    binary,
    ['-scheme', 'http', ...backend, '-host', '127.0.0.1', '-port', String(port), '-external-url', endpoint, '-log-level', 'error'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));

  let restoreEnv: (() => void) | undefined;
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    restoreEnv?.();
    restoreEnv = undefined;
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  for (;;) {
    if (exitedEarly) {
      throw new RiggingError('RIGGING_UNAVAILABLE', `fake-gcs-server exited during start-up: ${stderr.trim()}`, {
        retryable: false,
        details: { path: binary, operation: 'start' },
      });
    }
    try {
      const res = await fetch(`${endpoint}/storage/v1/b`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await close();
      throw new RiggingError('RIGGING_UNAVAILABLE', `fake-gcs-server did not answer on ${endpoint}`, {
        retryable: false,
        details: { path: endpoint, operation: 'start' },
      });
    }
    await sleep(50);
  }
  if (opts.setEnv === true) restoreEnv = replaceEnv(EMULATOR_ENV, endpoint);

  const createBucket = async (name: string): Promise<void> => {
    const res = await fetch(`${endpoint}/storage/v1/b?project=test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    if (!res.ok && res.status !== 409) {
      throw new RiggingError('RIGGING_UNAVAILABLE', `could not create bucket "${name}" on ${endpoint}: HTTP ${res.status}`, {
        details: { path: `gs://${name}`, operation: 'createBucket' },
      });
    }
  };

  return {
    endpoint,
    createBucket,
    async createUniqueBucket(prefix: string): Promise<string> {
      const name = `${prefix}-${randomUUID().slice(0, 8)}`;
      await createBucket(name);
      return name;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
