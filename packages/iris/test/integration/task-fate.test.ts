import { describe, expect, it } from 'vitest';
import { runTaskFateScenario } from '../helpers/task-fate.js';

// Real worker daemons, real task processes. The full 1,000-job runs are `npm run bench:fate`;
// IRIS_FATE_JOBS overrides the count here.
const JOBS = Number(process.env['IRIS_FATE_JOBS'] ?? 300);

describe('a task never outlives its worker', () => {
  it('completes every job body exactly once when a worker daemon is SIGKILLed mid-run', async () => {
    const result = await runTaskFateScenario({ fault: 'SIGKILL', jobs: JOBS });
    expect(result).toMatchObject({ doubleCompletions: 0, lost: 0, failures: [] });
  }, 600_000);

  it('completes every job body exactly once when a worker daemon is SIGSTOPped past the liveness timeout, then resumed', async () => {
    const result = await runTaskFateScenario({ fault: 'SIGSTOP', jobs: JOBS });
    expect(result).toMatchObject({ doubleCompletions: 0, lost: 0, failures: [] });
  }, 600_000);
});
