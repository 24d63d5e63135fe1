import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobFailed } from '../errors.js';
import type { JobHandle } from './client.js';
import type { JobStatus } from './job-status.js';
import { waitAll } from './wait-all.js';

/** A handle whose status() walks through `sequence` (the last entry repeats) and records when it was polled. */
function scripted(jobId: string, sequence: JobStatus[]): JobHandle & { polledAt: number[] } {
  const polledAt: number[] = [];
  let i = 0;
  const current = (): JobStatus => sequence[Math.min(i, sequence.length - 1)] as JobStatus;
  return {
    jobId,
    polledAt,
    status: vi.fn(async () => {
      polledAt.push(Date.now());
      const s = current();
      i += 1;
      return s;
    }),
    pendingReason: vi.fn(async () => undefined),
    wait: vi.fn(async ({ raiseOnFailure = true } = {}) => {
      const s = current();
      if (raiseOnFailure && (s === 'failed' || s === 'stopped')) throw new JobFailed(jobId, s, `Job ${jobId} ${s}: scripted`);
      return s;
    }),
    logs: vi.fn(async () => []),
    terminate: vi.fn(async () => undefined),
  };
}

describe('waitAll()', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sleeps 50 ms, ×1.5 per round, capped at 2 s', async () => {
    const job = scripted('j', [...Array<JobStatus>(12).fill('running'), 'succeeded']);
    const done = waitAll([job]);
    await vi.runAllTimersAsync();
    expect(await done).toEqual(['succeeded']);
    const gaps = job.polledAt.slice(1).map((t, i) => t - (job.polledAt[i] as number));
    const expected: number[] = [];
    let s = 50;
    for (let k = 0; k < gaps.length; k++) {
      expected.push(s);
      s = Math.min(s * 1.5, 2000);
    }
    // Fake timers work in whole milliseconds, so each gap may be off by one from the exact schedule.
    gaps.forEach((gap, k) => expect(Math.abs(gap - (expected[k] as number))).toBeLessThanOrEqual(1));
    expect(gaps).toHaveLength(12);
    expect(Math.max(...gaps)).toBe(2000);
  });

  it('returns statuses in input order and stops polling finished jobs', async () => {
    const a = scripted('a', ['running', 'running', 'succeeded']);
    const b = scripted('b', ['stopped']);
    const c = scripted('c', ['pending', 'failed']);
    const done = waitAll([a, b, c], { raiseOnFailure: false });
    await vi.runAllTimersAsync();
    expect(await done).toEqual(['succeeded', 'stopped', 'failed']);
    expect(b.polledAt).toHaveLength(1);
  });

  it('throws WaitTimeout listing the unfinished jobs', async () => {
    const a = scripted('a', ['running']);
    const b = scripted('b', ['succeeded']);
    const done = waitAll([a, b], { timeoutMs: 1000 }).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await done).toMatchObject({ code: 'FRAY_WAIT_TIMEOUT', jobIds: ['a'], timeoutMs: 1000 });
    expect(Date.now()).toBe(1000);
  });

  it('throws JobFailed for the first job seen failed or stopped', async () => {
    const a = scripted('a', ['running', 'running', 'running', 'succeeded']);
    const b = scripted('b', ['running', 'failed']);
    const done = waitAll([a, b]).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await done).toMatchObject({ code: 'FRAY_JOB_FAILED', jobId: 'b', failedStatus: 'failed' });
  });

  it('returns at once for an empty list', async () => {
    expect(await waitAll([])).toEqual([]);
  });
});
