import { useState } from 'preact/hooks';
import type { AutoscalerResponse, ScaleGroupView, SliceView } from '../../src/dashboard/api-types.ts';
import { getJson } from '../api.ts';
import { duration, jobHref } from '../format.ts';
import { usePoll } from '../router.ts';

function groupState(g: ScaleGroupView, nowMs: number) {
  if (g.churning) return <span class="state s-FAILED">quarantined</span>;
  if (g.backoffUntilMs > nowMs) return <span class="state s-BACKOFF">backoff {duration(nowMs, g.backoffUntilMs)}</span>;
  return <span class="state s-READY">ok</span>;
}

function SliceRow({ s, nowMs }: { s: SliceView; nowMs: number }) {
  return (
    <tr data-slice={s.sliceId}>
      <td>{s.sliceId}</td>
      <td>{s.group}</td>
      <td>
        <span class={`state s-${s.state}`}>{s.state}</span>
        <div class="muted small">for {duration(s.stateSinceMs, nowMs)}</div>
      </td>
      <td>
        {s.workersRegistered}/{s.vmCount}
        {s.workers.length > 0 && <div class="muted small">{s.workers.join(', ')}</div>}
      </td>
      <td>{duration(s.createdAtMs, nowMs)}</td>
      <td>{s.idleSinceMs === null ? '-' : duration(s.idleSinceMs, nowMs)}</td>
      <td class={s.error === '' ? 'muted' : 'error'}>{s.error === '' ? '-' : s.error}</td>
    </tr>
  );
}

/** Scale groups and their slices, polled from `/api/autoscaler`; an explanation when the controller runs no autoscaler. */
export function AutoscalerPage() {
  const [data, setData] = useState<AutoscalerResponse | null>(null);
  const [error, setError] = useState('');
  usePoll(
    () =>
      void getJson<AutoscalerResponse>('autoscaler').then(
        (d) => {
          setData(d);
          setError('');
        },
        (e: Error) => setError(e.message),
      ),
    3000,
    [],
  );
  if (error && !data) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  if (!data.enabled) {
    return (
      <section class="empty-state">
        <h2>Slices and scale groups</h2>
        <p>This controller runs no autoscaler, so there are no scale groups or slices: workers join by themselves.</p>
        <p class="muted">
          Start the cluster from a config with <code>scale_groups</code> (<code>iris cluster start --config cluster.yaml</code>) to have the autoscaler create
          slices.
        </p>
      </section>
    );
  }
  const { nowMs } = data;
  const live = data.slices.filter((s) => !['TERMINATED', 'FAILED', 'PREEMPTED'].includes(s.state));
  const ended = data.slices.filter((s) => ['TERMINATED', 'FAILED', 'PREEMPTED'].includes(s.state));
  return (
    <section>
      <h2>Scale groups ({data.groups.length})</h2>
      <table class="groups">
        <thead>
          <tr>
            <th>Group</th>
            <th>Platform</th>
            <th>Slice</th>
            <th>Min / max / buffer</th>
            <th>Slices</th>
            <th>Creates</th>
            <th>State</th>
            <th>Last error</th>
          </tr>
        </thead>
        <tbody>
          {data.groups.map((g) => (
            <tr key={g.name} data-group={g.name}>
              <td>
                {g.name}
                <div class="muted small">priority {g.priority}</div>
              </td>
              <td>{g.platform}</td>
              <td>{g.template ?? '-'}</td>
              <td>
                {g.minSlices} / {g.maxSlices} / {g.bufferSlices}
              </td>
              <td>{g.currentSlices}</td>
              <td>
                {g.createAttempts}
                {g.consecutiveFailures > 0 && <div class="muted small">{g.consecutiveFailures} failed in a row</div>}
              </td>
              <td>
                {groupState(g, nowMs)}
                {g.heldBack !== '' && <div class="muted small">{g.heldBack}</div>}
              </td>
              <td class={g.lastError === '' ? 'muted' : 'error'}>{g.lastError === '' ? '-' : g.lastError}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Slices ({live.length})</h2>
      <table class="slices">
        <thead>
          <tr>
            <th>Slice</th>
            <th>Group</th>
            <th>State</th>
            <th>Workers</th>
            <th>Age</th>
            <th>Idle</th>
            <th>Last error</th>
          </tr>
        </thead>
        <tbody>
          {live.length === 0 ? (
            <tr>
              <td colSpan={7} class="muted">
                No live slices.
              </td>
            </tr>
          ) : (
            live.map((s) => <SliceRow key={s.sliceId} s={s} nowMs={nowMs} />)
          )}
        </tbody>
      </table>
      {ended.length > 0 && (
        <>
          <h2>Ended slices ({ended.length})</h2>
          <table class="slices ended">
            <tbody>
              {ended.map((s) => (
                <SliceRow key={s.sliceId} s={s} nowMs={nowMs} />
              ))}
            </tbody>
          </table>
        </>
      )}
      {data.unmet.length > 0 && (
        <>
          <h2>Unmet demand ({data.unmet.length})</h2>
          <table class="unmet">
            <thead>
              <tr>
                <th>Job</th>
                <th>Tasks</th>
                <th>Reason</th>
              </tr>
            </thead>
            <tbody>
              {data.unmet.map((u) => (
                <tr key={u.jobId}>
                  <td>
                    <a href={jobHref(u.jobId)}>{u.jobId}</a>
                  </td>
                  <td>{u.tasks}</td>
                  <td>{u.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <p class="muted small">Evaluated {data.evaluatedAtMs > 0 ? `${duration(data.evaluatedAtMs, nowMs)} ago` : 'not yet'}; refreshes every 3 s.</p>
    </section>
  );
}
