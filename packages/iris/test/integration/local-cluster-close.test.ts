import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PROGRAM = fileURLToPath(new URL('../helpers/local-cluster-program.ts', import.meta.url));

/** Processes on this machine whose command line carries `marker`. */
function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,args='])
    .toString()
    .split('\n')
    .filter((l) => l.includes(marker) && !l.includes('local-cluster-program'));
}

function runProgram(marker: string, closeAfterMs: number): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', PROGRAM, marker, String(closeAfterMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout })));
}

describe('closing a local cluster', () => {
  // 0 ms: jobs launched but not yet started when close begins; 3 s: tasks running under their supervisors.
  it.each([0, 3000])('leaves no process behind and lets its program exit on its own (close after %i ms)', async (closeAfterMs) => {
    const marker = `iris-close-${randomBytes(6).toString('hex')}`;
    const { code, stdout } = await runProgram(marker, closeAfterMs);
    expect(code).toBe(0);
    expect(stdout).toContain('closed');
    expect(processesWith(marker)).toEqual([]);
  }, 120_000);
});
