import { spawn } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonEnvCacheDir, pythonEnvKey } from '@marin/rigging';

const here = dirname(fileURLToPath(import.meta.url));
/** The executor's checked-in lock of today's Marin (marin-core 0.2.227). */
export const MARIN_CORE_LOCK = resolve(here, '../../python/marin-core.lock');
/** The Python scripts the interop tests run with it. */
export const PYTHON_SCRIPTS = resolve(here, '../python');
const PYTHON_VERSION = '3.12';
const CREATE_COMMAND = 'node tools/python-env/python-env.mjs packages/executor/python/marin-core.lock --python 3.12';

/**
 * The interpreter of the marin-core environment `.ci/run` creates from the checked-in lock.
 * @throws Error naming the command that creates it when it does not exist (tests never skip on it)
 */
export async function marinCorePython(): Promise<string> {
  const key = pythonEnvKey(await readFile(MARIN_CORE_LOCK), PYTHON_VERSION);
  const dir = join(pythonEnvCacheDir(), `py${PYTHON_VERSION}-${key}`);
  try {
    await access(join(dir, '.marin-env.json'));
  } catch {
    throw new Error(`the marin-core Python environment is missing; create it from the repository root with: ${CREATE_COMMAND}`);
  }
  return join(dir, 'bin', 'python');
}

/** What a Python run printed and how it ended. */
export interface PythonRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runMarinPython}. */
export interface RunMarinPythonOptions {
  /** Written to the process's stdin. */
  input?: string;
  /** `MARIN_PREFIX` of the run (always set: without it Marin asks the cloud metadata server). */
  prefix: string;
  env?: Record<string, string>;
  /** Resolve (not reject) on a non-zero exit. @default false */
  allowFailure?: boolean;
}

/** Environment of every Python Marin run: the prefix, CPU JAX, offline, the scripts on `PYTHONPATH`. */
export function marinPythonEnv(prefix: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    MARIN_PREFIX: prefix,
    JAX_PLATFORMS: 'cpu',
    WANDB_MODE: 'disabled',
    HF_HUB_OFFLINE: '1',
    PYTHONPATH: PYTHON_SCRIPTS,
    PYTHONUNBUFFERED: '1',
    ...extra,
  };
}

/** Runs `test/python/<script>` with marin-core; rejects on a non-zero exit (with its stderr) unless `allowFailure`. */
export async function runMarinPython(script: string, args: readonly string[], opts: RunMarinPythonOptions): Promise<PythonRun> {
  const python = await marinCorePython();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(python, [join(PYTHON_SCRIPTS, script), ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: marinPythonEnv(opts.prefix, opts.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0 || opts.allowFailure === true) resolvePromise({ code, signal, stdout, stderr });
      else reject(new Error(`python ${script} exited ${code ?? signal}:\n${stderr.slice(-4000)}`));
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** A running Python Marin process. */
export interface PythonProcess {
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout contains `text`; rejects if the process exits first. */
  waitForStdout(text: string): Promise<void>;
  exited: Promise<PythonRun>;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts `test/python/<script>` with marin-core without waiting for it. */
export async function startMarinPython(script: string, args: readonly string[], opts: { prefix: string; env?: Record<string, string> }): Promise<PythonProcess> {
  const python = await marinCorePython();
  const child = spawn(python, [join(PYTHON_SCRIPTS, script), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: marinPythonEnv(opts.prefix, opts.env) });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    for (const l of listeners) l();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<PythonRun>((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const l of listeners) l();
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    kill: (signal = 'SIGKILL') => void child.kill(signal),
    waitForStdout: (text) =>
      new Promise<void>((resolvePromise, reject) => {
        const check = (): void => {
          if (stdout.includes(text)) {
            listeners.delete(check);
            resolvePromise();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            listeners.delete(check);
            reject(new Error(`python ${script} exited before printing ${JSON.stringify(text)}:\n${stderr.slice(-3000)}`));
          }
        };
        listeners.add(check);
        check();
      }),
  };
}
