import { describe, expect, it } from 'vitest';
import { runTaskFateScenario } from '../helpers/task-fate.js';

// Real worker daemons, real task processes. The full 1,000-job runs are `npm run bench:fate`;
// IRIS_FATE_JOBS overrides the count here.
const JOBS = Number(process.env['IRIS_FATE_JOBS'] ?? 300);
// The guarantee needs a stalled worker's supervisors to report before the controller gives up on the worker
// (task lease 1 s < grace). A test machine running other suites can starve those processes for seconds,
// so the grace here is generous; the bench keeps the tight default.
const GRACE_MS = 10_000;

describe('a task never outlives its worker', () => {
  it('completes every job body exactly once when a worker daemon is SIGKILLed mid-run', async () => {
    const result = await runTaskFateScenario({ fault: 'SIGKILL', jobs: JOBS, workerUnreachableGraceMs: GRACE_MS });
    expect(result).toMatchObject({ doubleCompletions: 0, lost: 0, failures: [] });
  }, 600_000);

  it('completes every job body exactly once when a worker daemon is SIGSTOPped past the liveness timeout, then resumed', async () => {
    const result = await runTaskFateScenario({ fault: 'SIGSTOP', jobs: JOBS, workerUnreachableGraceMs: GRACE_MS });
    expect(result).toMatchObject({ doubleCompletions: 0, lost: 0, failures: [] });
  }, 600_000);
});
