import { LaunchJobRequest } from '../../gen/iris/v1/controller.js';
import type { JobState, PriorityBand } from '../../gen/iris/v1/types.js';
import type { ControllerStore, JobRow } from './store.js';

/**
 * The read queries beyond {@link ControllerStore}'s row access: counts, pages and searches the
 * services and the dashboard ask for. Every SQL statement of the controller lives in `store/`; the
 * layers above call these.
 */

/** How many jobs are in each state (states with none are absent). */
export function jobCountsByState(store: ControllerStore): { readonly state: JobState; readonly n: number }[] {
  return store.db.prepare('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state').all() as { state: JobState; n: number }[];
}

/** Ids of root jobs finished before `cutoffMs` (candidates for pruning). */
export function rootJobsFinishedBefore(store: ControllerStore, cutoffMs: number): string[] {
  const rows = store.db.prepare('SELECT job_id FROM jobs WHERE parent_id IS NULL AND finished_at_ms > 0 AND finished_at_ms < ?').all(cutoffMs) as { job_id: string }[];
  return rows.map((r) => r.job_id);
}

/** The task an endpoint was registered by, or undefined when there is no such endpoint. */
export function endpointTaskId(store: ControllerStore, endpointId: string): string | undefined {
  const row = store.db.prepare('SELECT task_id FROM endpoints WHERE endpoint_id = ?').get(endpointId) as { task_id: string } | undefined;
  return row?.task_id;
}

/** A function returning when the last attempt on a worker finished (0 when none did), its statement prepared once. */
export function lastAttemptFinishedOn(store: ControllerStore): (workerId: string) => number {
  const statement = store.db.prepare('SELECT MAX(finished_at_ms) AS t FROM attempts WHERE worker_id = ?');
  return (workerId) => (statement.get(workerId) as { t: number | null }).t ?? 0;
}

/** A function returning the newest `limit` jobs whose id contains a fragment, its statement prepared once. */
export function jobsWithIdContaining(store: ControllerStore, limit: number): (fragment: string) => { readonly job_id: string; readonly state: JobState }[] {
  const statement = store.db.prepare('SELECT job_id, state FROM jobs WHERE instr(job_id, ?) > 0 ORDER BY seq DESC LIMIT ?');
  return (fragment) => statement.all(fragment, limit) as { job_id: string; state: JobState }[];
}

/** Orders a job page can sort by. */
export type JobSortKey = 'submitted' | 'id' | 'state' | 'user';

/** The filters and order of one page of jobs. */
export interface JobPageQuery {
  /** Job id prefix, '' for every job. */
  readonly prefix: string;
  /** Only these states; empty for every state. */
  readonly states: readonly JobState[];
  readonly rootsOnly: boolean;
  /** Only jobs of this user (the `user` column). @default every user */
  readonly user?: string | undefined;
  /** Only jobs whose requested band is one of these. @default every band */
  readonly bands?: readonly PriorityBand[] | undefined;
  /** @default "submitted" */
  readonly sort?: JobSortKey | undefined;
  readonly descending?: boolean | undefined;
  readonly limit: number;
  readonly offset: number;
}

const ORDER: Readonly<Record<JobSortKey, string>> = { submitted: 'seq', id: 'job_id', state: 'state', user: 'user' };
const BAND_FUNCTION = 'iris_job_band';
const withBandFunction = new WeakSet<ControllerStore>();

/**
 * The band is inside the stored request, so band filters read it through a SQL function over the
 * row's request blob; the rows never leave SQLite unfiltered. A job's band is fixed at submit, so
 * each (job id, seq) is decoded once. The function must not query: SQLite is mid-statement.
 */
function ensureBandFunction(store: ControllerStore): void {
  if (withBandFunction.has(store)) return;
  const bands = new Map<string, number>();
  store.db.function(BAND_FUNCTION, { deterministic: true }, (jobId: unknown, seq: unknown, request: unknown) => {
    const key = `${String(jobId)}#${String(seq)}`;
    let band = bands.get(key);
    if (band === undefined) {
      band = Buffer.isBuffer(request) ? LaunchJobRequest.decode(request).priorityBand : 0;
      bands.set(key, band);
    }
    return band;
  });
  withBandFunction.add(store);
}

/** One page of job rows and the count of all rows matching the filters; the page is cut in SQL. */
export function jobPage(store: ControllerStore, q: JobPageQuery): { readonly rows: JobRow[]; readonly total: number } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (q.prefix !== '') {
    where.push('substr(job_id, 1, ?) = ?');
    args.push(q.prefix.length, q.prefix);
  }
  if (q.states.length > 0) {
    where.push(`state IN (${q.states.map(() => '?').join(', ')})`);
    args.push(...q.states);
  }
  if (q.rootsOnly) where.push('parent_id IS NULL');
  if (q.user !== undefined && q.user !== '') {
    where.push('user = ?');
    args.push(q.user);
  }
  if (q.bands !== undefined && q.bands.length > 0) {
    ensureBandFunction(store);
    where.push(`${BAND_FUNCTION}(job_id, seq, request) IN (${q.bands.map(() => '?').join(', ')})`);
    args.push(...q.bands);
  }
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const direction = q.descending ? 'DESC' : 'ASC';
  const order = `${ORDER[q.sort ?? 'submitted']} ${direction}${q.sort === undefined || q.sort === 'submitted' ? '' : `, seq ${direction}`}`;
  const { n } = store.db.prepare(`SELECT COUNT(*) AS n FROM jobs ${filter}`).get(...args) as { n: number };
  const rows = store.db.prepare(`SELECT * FROM jobs ${filter} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...args, q.limit, q.offset) as JobRow[];
  return { rows, total: n };
}
