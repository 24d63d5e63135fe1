import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The executor package directory (child processes run from here so `tsx` and the source condition resolve). */
export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Absolute path of a fixture entry script under `test/fixtures`. */
export function fixturePath(name: string): string {
  return join(PACKAGE_DIR, 'test', 'fixtures', name);
}

/** A running fixture process; dispose kills it if it is still alive. */
export interface FixtureProcess extends AsyncDisposable {
  readonly child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stdout contains `text`; rejects if the process exits first. */
  waitForStdout(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link startFixture}. */
export interface StartFixtureOptions {
  args?: readonly string[];
  env?: Record<string, string | undefined>;
  /**
   * Directories the process sees read-only: it runs in its own user and mount namespace
   * (`unshare -rm`) with each one bind-mounted read-only onto itself, so writes fail with a real
   * EROFS while the rest of the machine is untouched.
   */
  readOnlyDirs?: readonly string[];
}

/**
 * Starts `node --conditions=@marin/source --import tsx test/fixtures/<name> ...args` as a real OS
 * process with `CI=1` (plain progress) plus `env`.
 */
export function startFixture(name: string, opts: StartFixtureOptions = {}): FixtureProcess {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, CI: '1', ...opts.env })) if (v !== undefined) env[k] = v;
  const node = [process.execPath, '--conditions=@marin/source', '--import', 'tsx', fixturePath(name), ...(opts.args ?? [])];
  const ro = opts.readOnlyDirs ?? [];
  const script = [...ro.map((_, i) => `mount --bind "$${i + 1}" "$${i + 1}" && mount -o remount,ro,bind "$${i + 1}" "$${i + 1}"`), `shift ${ro.length}`, 'exec "$@"'].join(' && ');
  const [command, ...argv] = ro.length === 0 ? node : ['unshare', '-rm', 'sh', '-c', script, 'sh', ...ro, ...node];
  const child = spawn(command!, argv, {
    cwd: PACKAGE_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners: (() => void)[] = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const l of listeners) l();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      for (const l of listeners) l();
      resolve({ code, signal });
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  const close = async (): Promise<void> => {
    if (!done) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForStdout: (text) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (out.includes(text)) resolve();
          else if (done || child.exitCode !== null || child.signalCode !== null) {
            reject(new Error(`fixture ${name} exited before printing ${text}; stderr:\n${err}`));
          }
        };
        listeners.push(check);
        check();
      }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Runs a fixture to completion and returns its exit code and output. */
export async function runFixture(
  name: string,
  opts: StartFixtureOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startFixture(name, opts);
  const { code } = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}
