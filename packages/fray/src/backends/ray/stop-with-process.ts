import { stopJobTrees } from './job-tree.js';
import type { RayJobsApi } from './ray-jobs-api.js';

/** How long a terminated process spends stopping its children before it exits (Ray kills it after 3 s). */
export const CHILD_STOP_GRACE_MS = 2000;
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Jobs submitted by this process from inside a Fray job on Ray, by the API that submitted them. */
const submitted = new Map<RayJobsApi, Set<string>>();
let installed = false;

/**
 * Registers a child job of the Fray job this process runs: when Ray stops the process (SIGTERM, or SIGINT with
 * `RAY_JOB_STOP_SIGNAL=SIGINT`), it first stops every registered job and its descendants, for at most
 * {@link CHILD_STOP_GRACE_MS}, then raises the signal again with Node's default action. When the process has
 * listeners of its own for the signal (the executor's step worker), those decide how it exits.
 */
export function stopWithProcess(api: RayJobsApi, jobId: string): void {
  let ids = submitted.get(api);
  if (ids === undefined) submitted.set(api, (ids = new Set()));
  ids.add(jobId);
  if (installed) return;
  installed = true;
  for (const s of SIGNALS) process.on(s, onSignal);
}

function onSignal(signal: NodeJS.Signals): void {
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  installed = false;
  const work = [...submitted].map(([api, ids]) => stopJobTrees(api, [...ids]).catch(() => undefined));
  submitted.clear();
  let raised = false;
  const reraise = (): void => {
    if (raised) return;
    raised = true;
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const timer = setTimeout(reraise, CHILD_STOP_GRACE_MS);
  void Promise.all(work).finally(() => {
    clearTimeout(timer);
    reraise();
  });
}
