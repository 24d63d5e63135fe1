import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_DIR } from './fixture-process.js';

/** Runs `bin/marin.js <args>` from source as a real process and collects its output. */
export function runMarin(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', join(PACKAGE_DIR, 'bin', 'marin.js'), ...args], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, CI: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A `bin/marin.js` process still running: its output so far and its exit. */
export interface MarinProcess {
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Resolves once stderr contains `text`; rejects if the process exits first. */
  waitForStderr(text: string): Promise<void>;
}

/** Starts `bin/marin.js <args>` from source as a real process without waiting for it. */
export function startMarin(args: readonly string[], env: Record<string, string | undefined> = {}): MarinProcess {
  const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', join(PACKAGE_DIR, 'bin', 'marin.js'), ...args], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners: (() => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const l of listeners) l();
  });
  let done = false;
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      done = true;
      for (const l of listeners) l();
      resolve({ code, stdout, stderr });
    });
  });
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitForStderr: (text) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (stderr.includes(text)) resolve();
          else if (done) reject(new Error(`marin ${args.join(' ')} exited before printing ${text}; stderr:\n${stderr}`));
        };
        listeners.push(check);
        check();
      }),
  };
}
