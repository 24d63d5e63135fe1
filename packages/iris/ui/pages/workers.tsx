import { useState } from 'preact/hooks';
import type { WorkersResponse, WorkerView } from '../../src/dashboard/api-types.ts';
import { getJson } from '../api.ts';
import { bytes, jobHref, time } from '../format.ts';
import { usePoll } from '../router.ts';

/** Workers with health, capacity, attributes and running tasks, grouped by TPU slice. */
export function WorkersPage() {
  const [data, setData] = useState<WorkersResponse | null>(null);
  const [error, setError] = useState('');
  usePoll(() => void getJson<WorkersResponse>('workers').then(setData, (e: Error) => setError(e.message)), 3000, []);
  if (error && !data) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  const slices = new Map<string, WorkerView[]>();
  for (const w of data.workers) if (w.slice !== null) slices.set(w.slice, [...(slices.get(w.slice) ?? []), w]);
  return (
    <section>
      <h2>Workers ({data.workers.length})</h2>
      <table>
        <thead>
          <tr>
            <th>Worker</th>
            <th>Health</th>
            <th>Slice</th>
            <th>CPU free</th>
            <th>Memory free</th>
            <th>Accelerators free</th>
            <th>Running tasks</th>
            <th>Attributes</th>
            <th>Last contact</th>
          </tr>
        </thead>
        <tbody>
          {data.workers.map((w) => (
            <tr key={w.workerId}>
              <td>
                {w.workerId}
                <div class="muted small">{w.address}</div>
              </td>
              <td>
                <span class={w.healthy ? 'state s-SUCCEEDED' : 'state s-FAILED'}>{w.healthy ? 'healthy' : 'unreachable'}</span>
              </td>
              <td>{w.slice ?? '-'}</td>
              <td>
                {w.free.cpuMillicores / 1000}/{w.capacity.cpuMillicores / 1000}
              </td>
              <td>
                {bytes(w.free.memoryBytes)}/{bytes(w.capacity.memoryBytes)}
              </td>
              <td>{w.capacity.tpuChips > 0 ? `${w.free.tpuChips}/${w.capacity.tpuChips} TPU chips` : w.capacity.gpuCount > 0 ? `${w.free.gpuCount}/${w.capacity.gpuCount} GPUs` : '-'}</td>
              <td>
                {w.tasks.length === 0
                  ? '-'
                  : w.tasks.map((t) => (
                      <div key={t.taskId}>
                        <a href={jobHref(t.jobId)}>{t.taskId}</a> <span class={`state s-${t.state}`}>{t.state}</span>
                      </div>
                    ))}
              </td>
              <td class="attrs">
                {Object.entries(w.attributes).map(([k, v]) => (
                  <span key={k} class="attr">
                    {k}={String(v)}
                  </span>
                ))}
              </td>
              <td class="muted">{time(w.lastContactMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {slices.size > 0 && (
        <>
          <h2>TPU slices ({slices.size})</h2>
          <table>
            <thead>
              <tr>
                <th>Slice</th>
                <th>Variant</th>
                <th>Members</th>
                <th>Healthy</th>
                <th>Running tasks</th>
              </tr>
            </thead>
            <tbody>
              {[...slices].map(([name, members]) => (
                <tr key={name}>
                  <td>{name}</td>
                  <td>{String(members[0]?.attributes['device-variant'] ?? '-')}</td>
                  <td>{members.map((m) => m.workerId).join(', ')}</td>
                  <td>
                    {members.filter((m) => m.healthy).length}/{members.length}
                  </td>
                  <td>{members.reduce((n, m) => n + m.tasks.length, 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
