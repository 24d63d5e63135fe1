import type { JobInfo, LogEntry } from '../core/job-types.js';
import { formatBytes } from '../core/sizes.js';

function hhmmss(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** `[HH:MM:SS] task=<index> | <line>` (build lines tagged `[build]`); child-job tasks show their path below `jobId`. */
export function formatLogLine(jobId: string, e: LogEntry): string {
  const slash = e.taskId.lastIndexOf('/');
  const owner = e.taskId.slice(0, slash);
  const task = owner === jobId ? e.taskId.slice(slash + 1) : e.taskId.startsWith(`${jobId}/`) ? e.taskId.slice(jobId.length + 1) : e.taskId;
  const tag = e.source === 'build' ? '[build] ' : '';
  return `[${hhmmss(e.timestampMs)}] task=${task} | ${tag}${e.data}`;
}

/** A plain left-aligned table. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Seconds between two instants, or '-' when either is missing. */
export function formatDuration(startMs: number, endMs: number): string {
  if (startMs <= 0) return '-';
  const end = endMs > 0 ? endMs : Date.now();
  return `${((end - startMs) / 1000).toFixed(1)}s`;
}

/** One `job list` row: JOB ID, STATE, TASKS, RESOURCES, SUBMITTED, REASON. */
export function jobListRow(j: JobInfo): string[] {
  const res = `${j.resources.cpu}cpu ${formatBytes(j.resources.memoryBytes)}${j.resources.device === 'cpu' ? '' : ` ${j.resources.device}`}`;
  return [j.jobId, j.state, `${j.completedCount}/${j.taskCount}`, res, new Date(j.submittedAtMs).toISOString(), j.pendingReason || (j.waitingFor && `waiting for ${j.waitingFor}`) || j.error];
}

/** The human `job summary`: per task state, attempts, exit, duration, peak memory, worker, error. */
export function formatJobSummary(j: JobInfo): string {
  const head = [
    `job ${j.jobId}: ${j.state}${j.exitCode ? ` (exit code ${j.exitCode})` : ''}`,
    ...(j.error ? [`error: ${j.error}`] : []),
    ...(j.pendingReason ? [`pending: ${j.pendingReason}`] : []),
    ...(j.waitingFor ? [`waiting for ${j.waitingFor}`] : []),
  ];
  const rows = j.tasks.map((t) => [
    String(t.taskIndex),
    t.state,
    String(t.attempts.length),
    t.state === 'SUCCEEDED' || t.state === 'FAILED' ? String(t.exitCode) : '-',
    formatDuration(t.startedAtMs, t.finishedAtMs),
    t.peakMemoryBytes > 0 ? formatBytes(t.peakMemoryBytes) : '-',
    t.workerId || '-',
    t.error || t.pendingReason,
  ]);
  // Attempts whose supervisor reported, too late, how they really ended: work that may have run twice.
  const late = j.tasks.flatMap((t) =>
    t.attempts
      .filter((a) => a.lateOutcome !== null)
      .map((a) => `task ${t.taskIndex} attempt ${a.attemptId} on ${a.workerId}: recorded ${a.state}, but it ended ${a.lateOutcome!.state} (exit ${a.lateOutcome!.exitCode}) after the task was retried`),
  );
  return [...head, formatTable(['TASK', 'STATE', 'ATTEMPTS', 'EXIT', 'DURATION', 'PEAK MEM', 'WORKER', 'ERROR'], rows), ...late].join('\n');
}
