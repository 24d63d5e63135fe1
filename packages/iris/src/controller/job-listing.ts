import { IrisError } from '../errors.js';
import type { ListJobsRequest, ListJobsResponse } from '../gen/iris/v1/controller.js';
import type { PriorityBand } from '../gen/iris/v1/types.js';
import type { BudgetView, PendingInfo } from './scheduling.js';
import { jobStatusOf } from './status-views.js';
import { jobPage } from './store/queries.js';
import type { JobSortKey } from './store/queries.js';
import type { ControllerStore } from './store/store.js';

export type { JobSortKey };

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

/**
 * One page of jobs with prefix, state, user and band filters and a sort order; the page is cut in
 * SQL (limit 50 by default, max 500), so listing stays fast with many thousands of jobs.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a negative offset or limit, or a prefix without a leading "/".
 */
export function listJobs(store: ControllerStore, pending: ReadonlyMap<string, PendingInfo>, budgets: BudgetView, q: JobListQuery): ListJobsResponse {
  if (q.offset < 0 || q.limit < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', 'offset and limit must be >= 0');
  if (q.prefix !== '' && !q.prefix.startsWith('/')) throw new IrisError('IRIS_INVALID_ARGUMENT', `prefix "${q.prefix}" must start with "/" (e.g. "/alice/")`);
  const limit = Math.min(q.limit || 50, 500);
  const { rows: page, total: n } = jobPage(store, { ...q, limit });
  return {
    jobs: page.map((j) => jobStatusOf(store, j, false, pending, budgets)),
    totalCount: n,
    hasMore: q.offset + page.length < n,
  };
}
