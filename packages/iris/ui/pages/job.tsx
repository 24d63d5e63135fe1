import { useEffect, useRef, useState } from 'preact/hooks';
import type { JobDetailResponse, JobInfo, JobState, LogEntry, LogStreamEvent, PrunedJobView, TaskView, WhoAmIView } from '../../src/dashboard/api-types.ts';
import { logLevelOf } from '../../src/dashboard/log-level.ts';
import { ApiFailure, getJson, mayStop, postJson, whoAmI } from '../api.ts';
import { bytes, duration, jobHref, span, time } from '../format.ts';
import { usePoll } from '../router.ts';

const TERMINAL: ReadonlySet<JobState> = new Set(['SUCCEEDED', 'FAILED', 'KILLED', 'WORKER_FAILED', 'UNSCHEDULABLE']);
/** Lines kept in the page; older ones are dropped from view. */
const MAX_LINES = 5000;

/** One job: summary, stop, tasks with attempts, child jobs and live logs; for a pruned job, what is left of it. */
export function JobPage({ params }: { params: URLSearchParams }) {
  const id = params.get('id') ?? '';
  const [data, setData] = useState<JobDetailResponse | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  usePoll(
    () =>
      void getJson<JobDetailResponse>('job', { id }).then(
        (r) => {
          setData(r);
          setFailure(null);
        },
        (e: Error) => {
          const f = e instanceof ApiFailure ? e : new ApiFailure('IRIS_INTERNAL', e.message);
          // A job that went away (pruned while the page was open) is no longer shown as it was.
          if (f.code === 'IRIS_JOB_PRUNED' || f.code === 'IRIS_JOB_NOT_FOUND') setData(null);
          setFailure(f);
        },
      ),
    2000,
    [id],
  );
  const pruned = failure?.body.prunedJob;
  if (pruned && !data) {
    return (
      <section>
        <PrunedJobSummary job={pruned} />
        <h2>Logs</h2>
        <LogView jobId={id} />
      </section>
    );
  }
  if (failure?.code === 'IRIS_JOB_NOT_FOUND' && !data) {
    return (
      <p class="error" data-job-not-found>
        No job {id} on this controller: it never ran here, or it was pruned from the controller and no log archive kept its logs.
      </p>
    );
  }
  if (failure && !data) return <p class="error">{failure.message}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  const { job } = data;
  return (
    <section>
      <JobSummary job={job} onStopped={() => void getJson<JobDetailResponse>('job', { id }).then(setData)} />
      <h2>Tasks</h2>
      <table>
        <thead>
          <tr>
            <th>#</th>
            <th>State</th>
            <th>Worker</th>
            <th>Attempts</th>
            <th>Exit</th>
            <th>CPU</th>
            <th>Memory (peak)</th>
            <th>Duration</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {data.tasks.map((t) => (
            <TaskRow key={t.taskId} task={t} />
          ))}
        </tbody>
      </table>
      {data.children.length > 0 && (
        <>
          <h2>Child jobs</h2>
          <table>
            <tbody>
              {data.children.map((c) => (
                <tr key={c.jobId}>
                  <td>
                    <a href={jobHref(c.jobId)}>{c.jobId}</a>
                  </td>
                  <td>
                    <span class={`state s-${c.state}`}>{c.state}</span>
                  </td>
                  <td>
                    {c.completedCount}/{c.taskCount}
                  </td>
                  <td class="reason">{c.error || c.pendingReason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h2>Logs</h2>
      <LogView jobId={id} />
    </section>
  );
}

function JobSummary({ job, onStopped }: { job: JobInfo; onStopped: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [stopError, setStopError] = useState('');
  // undefined until the controller says who we are: Stop is shown only once it is known to be allowed.
  const [me, setMe] = useState<WhoAmIView | null | undefined>(undefined);
  useEffect(() => void whoAmI().then(setMe), []);
  const stop = () => {
    setConfirming(false);
    postJson('job/stop', { id: job.jobId }).then(onStopped, (e: Error) => setStopError(e.message));
  };
  return (
    <div class="summary-box">
      <div class="title-row">
        <h1>{job.jobId}</h1>
        <span class={`state big s-${job.state}`}>{job.state}</span>
        <span class="grow" />
        {!TERMINAL.has(job.state) && !confirming && me !== undefined && mayStop(me, job.user) && (
          <button class="danger" onClick={() => setConfirming(true)}>
            Stop job
          </button>
        )}
        {confirming && (
          <span class="confirm" role="alertdialog">
            Stop {job.jobId}{job.hasChildren ? ' and its child jobs' : ''}?
            <button class="danger" onClick={stop}>
              Stop
            </button>
            <button onClick={() => setConfirming(false)}>Cancel</button>
          </span>
        )}
      </div>
      {stopError && <p class="error">{stopError}</p>}
      <dl>
        <dt>User</dt>
        <dd>{job.user}</dd>
        <dt>Band</dt>
        <dd>{job.effectivePriority === job.priority ? job.priority : `${job.priority} (runs as ${job.effectivePriority})`}</dd>
        <dt>Resources</dt>
        <dd>
          {job.resources.cpu} cpu · {bytes(job.resources.memoryBytes)} · {job.resources.device}
        </dd>
        <dt>Submitted</dt>
        <dd>{time(job.submittedAtMs)}</dd>
        <dt>Duration</dt>
        <dd>{duration(job.startedAtMs, job.finishedAtMs)}</dd>
        {job.parentJobId && (
          <>
            <dt>Parent</dt>
            <dd>
              <a href={jobHref(job.parentJobId)}>{job.parentJobId}</a>
            </dd>
          </>
        )}
        <dt>Command</dt>
        <dd>
          <code>{job.submitArgv.join(' ') || '-'}</code>
        </dd>
        {(job.error || job.pendingReason || job.waitingFor) && (
          <>
            <dt>{job.error ? 'Error' : 'Waiting'}</dt>
            <dd class="reason">{job.error || job.pendingReason || `for ${job.waitingFor}`}</dd>
          </>
        )}
        {(job.failureCount > 0 || job.preemptionCount > 0) && (
          <>
            <dt>Retries</dt>
            <dd>
              {job.failureCount} failures · {job.preemptionCount} preemptions
            </dd>
          </>
        )}
      </dl>
    </div>
  );
}

/** A job pruned from the controller's database: how it ended, when it went, and what is still there (its logs). */
function PrunedJobSummary({ job }: { job: PrunedJobView }) {
  const kept = job.jobRetentionMs === null ? '' : ` (ended jobs are kept ${span(job.jobRetentionMs)})`;
  return (
    <div class="summary-box" data-pruned-job>
      <div class="title-row">
        <h1>{job.jobId}</h1>
        {job.state && <span class={`state big s-${job.state}`}>{job.state}</span>}
        <span class="pruned-badge">pruned</span>
      </div>
      <p class="pruned-note">
        This job was pruned from the controller{job.prunedAtMs > 0 ? ` at ${time(job.prunedAtMs)}` : ''}
        {kept}: its tasks, attempts and child jobs are no longer listed. Its logs, and its child jobs' logs, are still available from the log
        archive, below.
      </p>
      <dl>
        <dt>Submitted</dt>
        <dd>{time(job.submittedAtMs)}</dd>
        <dt>Ended</dt>
        <dd>{job.finishedAtMs > 0 ? `${time(job.finishedAtMs)}${job.state ? ` (${job.state})` : ''}` : (job.state ?? '-')}</dd>
        <dt>Pruned</dt>
        <dd>{job.prunedAtMs > 0 ? time(job.prunedAtMs) : 'not recorded'}</dd>
        <dt>Log archive</dt>
        <dd>
          <code>{job.logsUrl}</code> (archived {time(job.archivedAtMs)})
        </dd>
      </dl>
    </div>
  );
}

function TaskRow({ task: t }: { task: TaskView }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <tr>
        <td>{t.taskIndex}</td>
        <td>
          <span class={`state s-${t.state}`}>{t.state}</span>
        </td>
        <td class="muted">{t.workerId || '-'}</td>
        <td>
          {t.attempts.length > 0 ? (
            <button class="link" onClick={() => setOpen(!open)}>
              {t.attempts.length} {open ? '▴' : '▾'}
            </button>
          ) : (
            '0'
          )}
        </td>
        <td>{t.finishedAtMs > 0 ? t.exitCode : '-'}</td>
        <td class="muted">{t.usage ? `${(t.usage.cpuMillicores / 1000).toFixed(2)}` : '-'}</td>
        <td class="muted">{t.usage ? `${bytes(t.usage.memoryBytes)} (${bytes(t.usage.peakMemoryBytes)})` : bytes(t.peakMemoryBytes)}</td>
        <td class="muted">{duration(t.startedAtMs, t.finishedAtMs)}</td>
        <td class="reason">{t.error || t.pendingReason}</td>
      </tr>
      {open &&
        t.attempts.map((a) => (
          <tr key={a.attemptUid} class="attempt">
            <td />
            <td>
              attempt {a.attemptId}: <span class={`state s-${a.state}`}>{a.state}</span>
            </td>
            <td class="muted">{a.workerId}</td>
            <td />
            <td>{a.finishedAtMs > 0 ? a.exitCode : '-'}</td>
            <td colSpan={3} class="muted">
              {time(a.startedAtMs)} · {duration(a.startedAtMs, a.finishedAtMs)}
            </td>
            <td class="reason">
              {a.isWorkerFailure ? 'worker failure: ' : ''}
              {a.error}
              {a.lateOutcome !== null ? ` · reported later: ended ${a.lateOutcome.state} (exit ${a.lateOutcome.exitCode}); the task ran again` : ''}
            </td>
          </tr>
        ))}
    </>
  );
}

/** Live logs: server-sent events from the controller's log follow, appended as they arrive. */
function LogView({ jobId }: { jobId: string }) {
  const [lines, setLines] = useState<LogEntry[]>([]);
  const [status, setStatus] = useState('connecting');
  const [follow, setFollow] = useState(true);
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    setLines([]);
    const source = new EventSource(`/api/logs/stream?id=${encodeURIComponent(jobId)}`);
    source.addEventListener('logs', (ev) => {
      const event = JSON.parse((ev as MessageEvent<string>).data) as LogStreamEvent;
      if (event.entries.length > 0) setLines((old) => [...old, ...event.entries].slice(-MAX_LINES));
      setStatus(event.done ? `ended (${event.jobState.toLowerCase()})` : 'following');
      // Without this the browser would reconnect to a finished stream forever.
      if (event.done) source.close();
    });
    source.addEventListener('failure', (ev) => {
      setStatus(`failed: ${(JSON.parse((ev as MessageEvent<string>).data) as { message: string }).message}`);
      source.close();
    });
    source.onerror = () => setStatus((s) => (s.startsWith('ended') ? s : 'reconnecting'));
    return () => source.close();
  }, [jobId]);
  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines, follow]);
  return (
    <div class="logs">
      <div class="log-bar">
        <span class="muted" data-log-status={status}>
          {lines.length} lines · {status}
        </span>
        <label class="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} /> scroll with output
        </label>
      </div>
      <pre ref={box} class="log-lines">
        {lines.map((l) => (
          <div key={`${l.attemptUid}:${l.seq}`} class={`line src-${l.source} lvl-${logLevelOf(l.data) ?? 'none'}`}>
            <span class="ts">{time(l.timestampMs).slice(11)}</span> <span class="task">{l.taskId.slice(l.taskId.lastIndexOf('/') + 1)}</span> {l.data}
          </div>
        ))}
      </pre>
    </div>
  );
}
