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
