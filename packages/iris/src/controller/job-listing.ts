import { IrisError } from '../errors.js';
import { LaunchJobRequest } from '../gen/iris/v1/controller.js';
import type { ListJobsRequest, ListJobsResponse } from '../gen/iris/v1/controller.js';
import type { PriorityBand } from '../gen/iris/v1/types.js';
import type { BudgetView, PendingInfo } from './scheduling.js';
import { jobStatusOf } from './status-views.js';
import type { ControllerStore, JobRow } from './store/store.js';

/** Orders `listJobs` can sort by. */
export type JobSortKey = 'submitted' | 'id' | 'state' | 'user';

/** `ListJobs` plus the filters and orders the dashboard adds (not on the wire). */
export interface JobListQuery extends ListJobsRequest {
  /** Only jobs of this user (the `user` column). @default every user */
  readonly user?: string;
  /** Only jobs whose requested band is one of these. @default every band */
  readonly bands?: readonly PriorityBand[];
  /** @default "submitted" */
  readonly sort?: JobSortKey;
  /** @default false (oldest first, as `ListJobs` always returned) */
  readonly descending?: boolean;
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

/**
 * One page of jobs with prefix, state, user and band filters and a sort order; the page is cut in
 * SQL (limit 50 by default, max 500), so listing stays fast with many thousands of jobs.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a negative offset or limit, or a prefix without a leading "/".
 */
export function listJobs(store: ControllerStore, pending: ReadonlyMap<string, PendingInfo>, budgets: BudgetView, q: JobListQuery): ListJobsResponse {
  if (q.offset < 0 || q.limit < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', 'offset and limit must be >= 0');
  if (q.prefix !== '' && !q.prefix.startsWith('/')) throw new IrisError('IRIS_INVALID_ARGUMENT', `prefix "${q.prefix}" must start with "/" (e.g. "/alice/")`);
  const limit = Math.min(q.limit || 50, 500);
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
  const page = store.db.prepare(`SELECT * FROM jobs ${filter} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...args, limit, q.offset) as JobRow[];
  return {
    jobs: page.map((j) => jobStatusOf(store, j, false, pending, budgets)),
    totalCount: n,
    hasMore: q.offset + page.length < n,
  };
}
