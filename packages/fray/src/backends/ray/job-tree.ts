import type { RayJobInfo, RayJobsApi } from './ray-jobs-api.js';

/** The metadata key naming the Fray job (submission id) that submitted a job from inside itself. */
export const PARENT_METADATA_KEY = 'fray_parent';

/** Every job below the given roots (children, their children, …) by `metadata.fray_parent`, roots excluded. */
export function descendantsOf(jobs: readonly RayJobInfo[], rootIds: readonly string[]): RayJobInfo[] {
  const children = new Map<string, RayJobInfo[]>();
  for (const job of jobs) {
    const parent = job.metadata[PARENT_METADATA_KEY];
    if (parent === undefined || parent === '') continue;
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [job]);
    else list.push(job);
  }
  const seen = new Set<string>(rootIds);
  const out: RayJobInfo[] = [];
  const queue = [...rootIds];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const child of children.get(id) ?? []) {
      if (seen.has(child.submissionId)) continue;
      seen.add(child.submissionId);
      out.push(child);
      queue.push(child.submissionId);
    }
  }
  return out;
}

/**
 * Stops jobs and everything they submitted: first the roots (so they submit nothing more; a root running Fray's
 * Ray client also stops its own children on SIGTERM), then every unfinished descendant from one `GET /api/jobs/`.
 * Returns the ids of the descendants it asked Ray to stop.
 */
export async function stopJobTrees(api: RayJobsApi, rootIds: readonly string[]): Promise<{ rootsAccepted: boolean[]; descendants: string[] }> {
  const rootsAccepted = await Promise.all(rootIds.map((id) => api.stop(id)));
  const live = descendantsOf(await api.list(), rootIds).filter((j) => j.state === 'PENDING' || j.state === 'RUNNING');
  // A descendant that finished between the list and its stop answers "not stopped"; that is fine.
  await Promise.all(live.map((j) => api.stop(j.submissionId).catch(() => false)));
  return { rootsAccepted, descendants: live.map((j) => j.submissionId) };
}
