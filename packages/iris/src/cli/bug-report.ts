import type { IrisClient } from '../client/iris-client.js';
import type { ClusterStatus, JobInfo, LogEntry, TaskInfo, WorkerInfo } from '../core/job-types.js';
import { formatLogLine, formatTable } from './cli-format.js';

/** What `iris job bug-report` gathers about one job: everything an operator asks for first. */
export interface BugReport {
  readonly generatedAtMs: number;
  readonly controller: { readonly address: string; readonly version: string; readonly startedAtMs: number };
  /** The job as submitted and as it stands (state, error, resources, command, band). */
  readonly job: JobInfo;
  /** Why it is not running, or what it waits for (empty strings when neither). */
  readonly diagnostics: { readonly pendingReason: string; readonly canBeScheduled: boolean; readonly waitingFor: string };
  /** Every task with its attempts: worker, state, exit code, error, worker failure, late outcome. */
  readonly tasks: readonly TaskInfo[];
  /** Child jobs, one line each. */
  readonly children: readonly Pick<JobInfo, 'jobId' | 'state' | 'error' | 'pendingReason'>[];
  /** The workers any attempt of the job ran on, as they are now (a worker that is gone is listed as missing). */
  readonly workers: readonly (WorkerInfo | { readonly workerId: string; readonly missing: true })[];
  /** The last log lines of the job (its own tasks and its children's). */
  readonly lastLogLines: readonly LogEntry[];
}

/** Gathers a {@link BugReport} through the public API (so it needs only read access to the job). */
export async function buildBugReport(client: IrisClient, jobId: string, options: { logLines: number; now?: number }): Promise<BugReport> {
  const job = await client.getJob(jobId, { includeTasks: true });
  const [status, tasks, workers, allJobs, logs] = await Promise.all([
    client.clusterStatus(),
    client.listTasks(jobId),
    client.listWorkers(),
    client.listJobs({ prefix: `${jobId}/`, limit: 500 }),
    client.fetchLogs({ jobId, includeChildren: true, tail: true, maxLines: options.logLines }),
  ]);
  const workerIds = [...new Set(tasks.flatMap((t) => t.attempts.map((a) => a.workerId)).filter((w) => w !== ''))].sort();
  const byId = new Map(workers.map((w) => [w.workerId, w]));
  return {
    generatedAtMs: options.now ?? Date.now(),
    controller: controllerOf(client.address, status),
    job,
    diagnostics: { pendingReason: job.pendingReason, canBeScheduled: job.canBeScheduled, waitingFor: job.waitingFor },
    tasks,
    children: allJobs.filter((j) => j.parentJobId === jobId).map((j) => ({ jobId: j.jobId, state: j.state, error: j.error, pendingReason: j.pendingReason })),
    workers: workerIds.map((id) => byId.get(id) ?? { workerId: id, missing: true as const }),
    lastLogLines: logs.entries,
  };
}

function controllerOf(address: string, s: ClusterStatus): BugReport['controller'] {
  return { address, version: s.version, startedAtMs: s.startedAtMs };
}

const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : '-');

/** The report as one readable document (Markdown), for pasting into an issue. */
export function formatBugReport(r: BugReport): string {
  const j = r.job;
  const out: string[] = [
    `# Bug report: ${j.jobId}`,
    '',
    `generated ${iso(r.generatedAtMs)} · controller ${r.controller.address} version ${r.controller.version}, up since ${iso(r.controller.startedAtMs)}`,
    '',
    '## Job',
    '',
    `- state: ${j.state}${j.exitCode ? ` (exit code ${j.exitCode})` : ''}`,
    `- user: ${j.user} · band: ${j.priority} (now placed as ${j.effectivePriority})`,
    `- resources per task: ${j.resources.cpu} CPU, ${j.resources.memoryBytes} bytes memory, ${j.resources.device}`,
    `- command: ${j.submitArgv.join(' ') || '-'}`,
    `- submitted ${iso(j.submittedAtMs)}, started ${iso(j.startedAtMs)}, finished ${iso(j.finishedAtMs)}`,
    `- tasks: ${j.completedCount}/${j.taskCount} done; failures ${j.failureCount}, preemptions ${j.preemptionCount}`,
    ...(j.parentJobId ? [`- parent: ${j.parentJobId}`] : []),
    ...(j.error ? [`- error: ${j.error}`] : []),
    ...(r.diagnostics.pendingReason ? [`- pending: ${r.diagnostics.pendingReason}${r.diagnostics.canBeScheduled ? '' : ' (no current worker could host it)'}`] : []),
    ...(r.diagnostics.waitingFor ? [`- waiting for ${r.diagnostics.waitingFor}`] : []),
    '',
    '## Attempts',
    '',
  ];
  const rows = r.tasks.flatMap((t) =>
    t.attempts.length === 0
      ? [[String(t.taskIndex), '-', t.state, '-', '-', t.pendingReason || t.error || '']]
      : t.attempts.map((a) => [
          String(t.taskIndex),
          String(a.attemptId),
          a.state + (a.lateOutcome ? ` (reported late: ${a.lateOutcome.state}, exit ${a.lateOutcome.exitCode})` : ''),
          a.workerId || '-',
          a.finishedAtMs > 0 ? String(a.exitCode) : '-',
          [a.isWorkerFailure ? 'worker failure' : '', a.error].filter(Boolean).join(': '),
        ]),
  );
  out.push('```', formatTable(['TASK', 'ATTEMPT', 'STATE', 'WORKER', 'EXIT', 'REASON'], rows), '```', '');
  if (r.children.length > 0) {
    out.push('## Child jobs', '', '```', formatTable(['JOB', 'STATE', 'REASON'], r.children.map((c) => [c.jobId, c.state, c.error || c.pendingReason])), '```', '');
  }
  out.push('## Workers', '');
  if (r.workers.length === 0) out.push('(no attempt was placed on a worker)', '');
  else {
    const wrows = r.workers.map((w) =>
      'missing' in w
        ? [w.workerId, 'gone', '-', '-', '-']
        : [w.workerId, w.healthy ? 'healthy' : 'unhealthy', w.address, `${w.free.cpuMillicores}/${w.capacity.cpuMillicores} mCPU free`, iso(w.lastContactMs)],
    );
    out.push('```', formatTable(['WORKER', 'HEALTH', 'ADDRESS', 'FREE', 'LAST CONTACT'], wrows), '```', '');
  }
  out.push(`## Last ${r.lastLogLines.length} log lines`, '', '```', ...r.lastLogLines.map((e) => formatLogLine(j.jobId, e)), '```', '');
  return out.join('\n');
}
