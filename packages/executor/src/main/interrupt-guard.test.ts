import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { installInterruptGuard } from './interrupt-guard.js';

const noJobs = { activeJobs: [], terminateActiveJobs: async () => {} };

describe('interrupt guard', () => {
  it('aborts the run on the first signal and exits at once with 128+n on the second', () => {
    const target = new EventEmitter();
    const exits: number[] = [];
    const controller = new AbortController();
    const guard = installInterruptGuard({
      fray: noJobs,
      logger: silentLogger,
      controller,
      settled: () => new Promise(() => {}), // a run that never settles
      exit: (code) => void exits.push(code),
      target,
      stderr: { write: () => true },
    });
    target.emit('SIGINT', 'SIGINT');
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toMatchObject({ code: 'EXECUTOR_INTERRUPTED', details: { signal: 'SIGINT' } });
    expect(guard.signal).toBe('SIGINT');
    expect(guard.exitCode).toBe(130);
    expect(exits).toEqual([]);
    target.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
    guard.uninstall();
    expect(target.listenerCount('SIGINT') + target.listenerCount('SIGTERM')).toBe(0);
  });

  it('exits with 143 after SIGTERM when the run does not settle within the grace period', async () => {
    const target = new EventEmitter();
    const exits: number[] = [];
    const guard = installInterruptGuard({
      fray: noJobs,
      logger: silentLogger,
      controller: new AbortController(),
      settled: () => new Promise(() => {}),
      exit: (code) => void exits.push(code),
      graceMs: 50,
      target,
      stderr: { write: () => true },
    });
    target.emit('SIGTERM', 'SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    expect(exits).toEqual([143]);
    guard.uninstall();
  });
});
