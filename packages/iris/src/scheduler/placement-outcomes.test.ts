import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildInput } from '../../bench/placement.bench.js';
import { scheduleTick } from './schedule-tick.js';

/** What a tick decided on one bench snapshot: the counts, and a digest of the whole result as JSON. */
function outcome(workers: number, tasks: number, bands: boolean): string {
  const result = scheduleTick(buildInput(workers, tasks, bands));
  const digest = createHash('sha256').update(JSON.stringify(result)).digest('hex').slice(0, 16);
  return `${result.assignments.length} assignments, ${result.pendingJobs.length} pending, ${result.preemptions.length} preemptions, ${digest}`;
}

// The placement bench's snapshots, decided exactly as before the tick was made faster: a change to
// the scheduler that moves any assignment, pending reason or preemption shows up here.
describe('scheduleTick() on the placement bench snapshots', () => {
  it.each([
    [1000, 10_000, false, '3711 assignments, 1249 pending, 0 preemptions, 0726618eb1d0d322'],
    [1000, 10_000, true, '400 assignments, 1905 pending, 309 preemptions, 50831db39a5267cd'],
    [200, 3000, true, '80 assignments, 580 pending, 121 preemptions, 93b663d80c883c9e'],
    [50, 500, true, '16 assignments, 108 pending, 16 preemptions, d1b3357f8be683e1'],
  ])('%i workers, %i tasks, bands %s', (workers, tasks, bands, expected) => {
    expect(outcome(workers, tasks, bands)).toBe(expected);
  });
});

describe('scheduleTick() reading jobs', () => {
  it('reads each field of a job at most once per tick, and never copies a job', () => {
    // Jobs come in many object shapes, and a read from an object of an unfamiliar shape is slow:
    // the tick copies what it needs once instead of reading jobs in its passes and inner loops.
    const input = buildInput(200, 3000, true);
    const reads = new Map<string, number>();
    let copies = 0;
    const jobs = input.jobs.map(
      (job) =>
        new Proxy(job, {
          get(target, key, receiver) {
            const id = `${job.jobId} ${String(key)}`;
            reads.set(id, (reads.get(id) ?? 0) + 1);
            return Reflect.get(target, key, receiver) as unknown;
          },
          ownKeys(target) {
            copies += 1;
            return Reflect.ownKeys(target);
          },
        }),
    );
    const result = scheduleTick({ ...input, jobs });
    expect(result.preemptions.length).toBeGreaterThan(0);
    expect(result.assignments.some((a) => a.gang !== undefined)).toBe(true);
    expect([...reads].filter(([, n]) => n > 1)).toEqual([]);
    expect(copies).toBe(0);
  });
});
