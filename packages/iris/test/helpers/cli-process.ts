import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ENTRY = fileURLToPath(new URL('../../bin/iris.js', import.meta.url));
// Absolute, so the CLI can run with any working directory (e.g. a temp workspace).
const TSX_LOADER = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs')).href;
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A CLI child process with its captured output. */
export interface CliProcess extends AsyncDisposable {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the exit code (signals as 128 + n). */
  readonly exited: Promise<number>;
  /** Resolves once stdout contains `text`. */
  waitForOutput(text: string | RegExp, timeoutMs?: number): Promise<void>;
}

/** The argv that runs the CLI from source (for a task that calls `iris` itself). */
export const IRIS_SOURCE_ARGV: readonly string[] = [process.execPath, '--conditions=@marin/source', '--import', TSX_LOADER, ENTRY];

/** Starts `iris ARGS` from source as a real child process (its own process group); `input` is written to its stdin. */
export function spawnIris(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): CliProcess {
  const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', TSX_LOADER, ENTRY, ...args], {
    cwd: options.cwd ?? PACKAGE_ROOT,
    env: { ...process.env, IRIS_CONTROLLER_ADDRESS: '', ...options.env },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  if (options.input !== undefined) child.stdin!.end(options.input);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 2)));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitForOutput(text, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      const hit = () => (typeof text === 'string' ? out.includes(text) : text.test(out));
      while (!hit()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)}; stdout: ${out}; stderr: ${err}`);
        if (child.exitCode !== null) throw new Error(`iris exited ${child.exitCode} before printing ${String(text)}; stdout: ${out}; stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        await exited;
      }
    },
  };
}

/** Runs `iris ARGS` to completion. */
export async function runIris(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const p = spawnIris(args, options);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}
