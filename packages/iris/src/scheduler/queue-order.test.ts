import { describe, expect, it } from 'vitest';
import { job, jobWithTasks, tick, worker } from '../../test/helpers/scheduler-fixtures.js';
import { compareJobs } from './queue-order.js';

/** One single-slot worker: only the head of the queue gets it. */
function winner(entries: ReturnType<typeof jobWithTasks>[]): string | undefined {
  return tick([worker('w', { cores: 1 })], entries).assignments[0]?.jobId;
}

describe('queue order', () => {
  it('places the deeper job first', () => {
    const root = jobWithTasks('/u/root', 1, { rootSubmittedAtMs: 100, submittedAtMs: 100, seq: 1 });
    const child = jobWithTasks('/u/root/child', 1, { rootSubmittedAtMs: 100, submittedAtMs: 200, seq: 2 });
    expect(winner([root, child])).toBe('/u/root/child');
  });

  it('places the older root tree first', () => {
    const older = jobWithTasks('/u/older', 1, { submittedAtMs: 100, seq: 2 });
    const newer = jobWithTasks('/u/newer', 1, { submittedAtMs: 200, seq: 1 });
    expect(winner([newer, older])).toBe('/u/older');
  });

  it('lets a child of an older tree beat a newer root', () => {
    const child = jobWithTasks('/u/old/child', 1, { depth: 1, rootSubmittedAtMs: 100, submittedAtMs: 300, seq: 3 });
    const newRoot = jobWithTasks('/u/new', 1, { depth: 1, rootSubmittedAtMs: 200, submittedAtMs: 200, seq: 2 });
    expect(winner([newRoot, child])).toBe('/u/old/child');
  });

  it('is FIFO within a depth and tree, by submission time and then insertion sequence', () => {
    const a = jobWithTasks('/u/t/a', 1, { rootSubmittedAtMs: 100, submittedAtMs: 150, seq: 7 });
    const b = jobWithTasks('/u/t/b', 1, { rootSubmittedAtMs: 100, submittedAtMs: 150, seq: 5 });
    const c = jobWithTasks('/u/t/c', 1, { rootSubmittedAtMs: 100, submittedAtMs: 140, seq: 9 });
    expect(winner([a, b, c])).toBe('/u/t/c');
    expect(winner([a, b])).toBe('/u/t/b');
  });

  it('sorts jobs by every key in turn', () => {
    const jobs = [
      job('/u/x', { depth: 1, rootSubmittedAtMs: 5, submittedAtMs: 5, seq: 4 }),
      job('/u/y/z', { depth: 2, rootSubmittedAtMs: 9, submittedAtMs: 9, seq: 3 }),
      job('/u/w', { depth: 1, rootSubmittedAtMs: 1, submittedAtMs: 1, seq: 2 }),
      job('/u/v', { depth: 1, rootSubmittedAtMs: 1, submittedAtMs: 1, seq: 1 }),
    ];
    expect([...jobs].sort(compareJobs).map((j) => j.jobId)).toEqual(['/u/y/z', '/u/v', '/u/w', '/u/x']);
  });

  it('places the tasks of one job by task index', () => {
    const e = jobWithTasks('/u/j', 3);
    e.tasks.reverse();
    expect(tick([worker('w')], [e]).assignments.map((a) => a.taskId)).toEqual(['/u/j/0', '/u/j/1', '/u/j/2']);
  });
});
