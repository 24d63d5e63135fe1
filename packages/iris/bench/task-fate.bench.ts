/**
 * Task fate under worker faults: 1,000 short jobs on three real worker daemons, one of which is
 * SIGKILLed (whole process group) or SIGSTOPped past the controller's liveness timeout and then
 * resumed. Prints, per fault, the jobs whose body completed twice and the jobs lost.
 *
 * Run: `npm run bench:fate -w @marin/iris` (IRIS_FATE_JOBS overrides the job count).
 */
import { availableParallelism } from 'node:os';
import { runTaskFateScenario } from '../test/helpers/task-fate.js';
import type { WorkerFault } from '../test/helpers/task-fate.js';

const jobs = Number(process.env['IRIS_FATE_JOBS'] ?? 1000);
const faults = (process.argv[2] ?? 'SIGKILL,SIGSTOP').split(',') as WorkerFault[];
console.log(`nproc ${availableParallelism()}, ${jobs} jobs, 3 workers, task lease 1000 ms, liveness grace 4000 ms`);
for (const fault of faults) {
  const r = await runTaskFateScenario({ fault, jobs, log: (l) => console.log(`  ${l}`) });
  console.log(
    `${fault}: double completions ${r.doubleCompletions}, lost ${r.lost} (not SUCCEEDED ${r.notSucceeded}), ` +
      `worker-failed attempts ${r.workerFailedAttempts}, wall ${(r.wallMs / 1000).toFixed(1)} s, recovery after the fault ${(r.recoveryMs / 1000).toFixed(1)} s`,
  );
  for (const f of r.failures.slice(0, 5)) console.log(`  ${f.jobId} ${f.state} ${f.error}`);
}
