import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from './process-alive.js';

describe('isProcessAlive', () => {
  it('is true for a running process and false once it has exited and been reaped', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const pid = child.pid as number;
    expect(isProcessAlive(pid)).toBe(true);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('is true for this process and for pid 1 (EPERM when not root counts as alive)', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(1)).toBe(true);
  });
});
