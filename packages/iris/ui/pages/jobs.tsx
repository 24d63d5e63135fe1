import { useEffect, useState } from 'preact/hooks';
import type { JobListResponse, JobSortKey, JobState, PriorityBand } from '../../src/dashboard/api-types.ts';
import { getJson } from '../api.ts';
import { duration, jobHref, time } from '../format.ts';
import { navigate, usePoll } from '../router.ts';

const PAGE_SIZE = 50;
const STATES: readonly JobState[] = ['PENDING', 'BUILDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'KILLED', 'WORKER_FAILED', 'UNSCHEDULABLE'];
const BANDS: readonly PriorityBand[] = ['PRODUCTION', 'INTERACTIVE', 'BATCH'];
let firstPaintMarked = false;

/** The jobs table: filters, sortable columns and server-side paging. */
export function JobsPage({ params }: { params: URLSearchParams }) {
  const state = params.get('state') ?? '';
  const user = params.get('user') ?? '';
  const band = params.get('band') ?? '';
  const roots = params.get('roots') ?? '1';
  const sort = (params.get('sort') ?? 'submitted') as JobSortKey;
  const dir = params.get('dir') ?? 'desc';
  const page = Number(params.get('page') ?? '0');
  const [data, setData] = useState<JobListResponse | null>(null);
  const [error, setError] = useState('');
  const [userDraft, setUserDraft] = useState(user);
  useEffect(() => setUserDraft(user), [user]);
  const current = { state, user, band, roots, sort, dir, page: page || undefined };
  const go = (change: Record<string, string | number | undefined>) => navigate('jobs', { ...current, page: undefined, ...change });

  usePoll(
    () =>
      void getJson<JobListResponse>('jobs', { state, user, band, roots: roots === '1' ? 1 : undefined, sort, dir, offset: page * PAGE_SIZE, limit: PAGE_SIZE }).then(
        (r) => {
          setData(r);
          setError('');
        },
        (e: Error) => setError(e.message),
      ),
    3000,
    [state, user, band, roots, sort, dir, page],
  );
  useEffect(() => {
    if (data && !firstPaintMarked) {
      firstPaintMarked = true;
      performance.mark('iris-jobs-rendered');
    }
  }, [data]);

  const header = (key: JobSortKey, label: string) => (
    <th>
      <button class="sort" onClick={() => go({ sort: key, dir: sort === key && dir === 'desc' ? 'asc' : 'desc' })}>
        {label}
        {sort === key ? (dir === 'desc' ? ' ▾' : ' ▴') : ''}
      </button>
    </th>
  );
  const pages = data ? Math.max(1, Math.ceil(data.totalCount / PAGE_SIZE)) : 1;
  return (
    <section>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          go({ user: userDraft });
        }}
      >
        <label>
          State
          <select value={state} onChange={(e) => go({ state: e.currentTarget.value })}>
            <option value="">any</option>
            {STATES.map((s) => (
              <option value={s}>{s.toLowerCase()}</option>
            ))}
          </select>
        </label>
        <label>
          User
          <input value={userDraft} placeholder="any" onInput={(e) => setUserDraft(e.currentTarget.value)} onBlur={() => userDraft !== user && go({ user: userDraft })} />
        </label>
        <label>
          Band
          <select value={band} onChange={(e) => go({ band: e.currentTarget.value })}>
            <option value="">any</option>
            {BANDS.map((b) => (
              <option value={b}>{b.toLowerCase()}</option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={roots === '1'} onChange={(e) => go({ roots: e.currentTarget.checked ? '1' : '0' })} /> top-level only
        </label>
        <span class="muted grow">{data ? `${data.totalCount.toLocaleString()} jobs` : ''}</span>
      </form>
      {error && <p class="error">{error}</p>}
      <table class="jobs">
        <thead>
          <tr>
            {header('id', 'Job')}
            {header('user', 'User')}
            {header('state', 'State')}
            <th>Band</th>
            <th>Tasks</th>
            <th>Resources</th>
            {header('submitted', 'Submitted')}
            <th>Duration</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {data?.jobs.map((j) => (
            <tr key={j.jobId}>
              <td>
                <a href={jobHref(j.jobId)}>{j.jobId}</a>
              </td>
              <td>{j.user}</td>
              <td>
                <span class={`state s-${j.state}`}>{j.state}</span>
              </td>
              <td class="muted">{j.effectivePriority === j.priority ? j.priority.toLowerCase() : `${j.priority.toLowerCase()} → ${j.effectivePriority.toLowerCase()}`}</td>
              <td>
                {j.completedCount}/{j.taskCount}
              </td>
              <td class="muted">
                {j.resources.cpu} cpu{j.resources.device === 'cpu' ? '' : ` · ${j.resources.device}`}
              </td>
              <td class="muted">{time(j.submittedAtMs)}</td>
              <td class="muted">{duration(j.startedAtMs, j.finishedAtMs)}</td>
              <td class="reason">{j.error || j.pendingReason || (j.waitingFor && `waiting for ${j.waitingFor}`)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.jobs.length === 0 && <p class="muted">No jobs match.</p>}
      <div class="pager">
        <button disabled={page <= 0} onClick={() => navigate('jobs', { ...current, page: page - 1 || undefined })}>
          ← previous
        </button>
        <span>
          page {page + 1} of {pages}
        </span>
        <button disabled={!data?.hasMore} onClick={() => navigate('jobs', { ...current, page: page + 1 })}>
          next →
        </button>
      </div>
    </section>
  );
}
