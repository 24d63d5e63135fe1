import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `experiments/` folder: the experiments' own working directory. */
export const EXPERIMENTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The workspace root, where `iris job run` ships the workspace from. */
export const REPO_ROOT = join(EXPERIMENTS_DIR, '..');
/** Node flags that run TypeScript and read the sibling packages from source, so no build is needed. */
export const NODE_FLAGS = ['--conditions=@marin/source', '--import', 'tsx'];
/** The iris CLI from source (its own dev entry). */
export const IRIS_CLI = join(REPO_ROOT, 'packages', 'iris', 'bin', 'iris.js');

/** How a child process ended, with everything it wrote. */
export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  /** @default EXPERIMENTS_DIR */
  cwd?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
}

/**
 * Runs `command` to its exit. The child sees `CI=1` and no configured Iris controller, so `iris job run`
 * starts its embedded cluster instead of reaching one the surrounding shell points at.
 */
export function runProcess(command: string, args: readonly string[], options: RunProcessOptions = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? EXPERIMENTS_DIR,
      env: { ...process.env, CI: '1', IRIS_CONTROLLER_ADDRESS: '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a script or `.js`/`.ts` entry with this Node and {@link NODE_FLAGS}. */
export function runNode(args: readonly string[], options: RunProcessOptions = {}): Promise<Outcome> {
  return runProcess(process.execPath, [...NODE_FLAGS, ...args], options);
}
