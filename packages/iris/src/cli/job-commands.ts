import type { IrisClient } from '../client/iris-client.js';
import { TERMINAL_JOB_STATES } from '../core/job-types.js';
import type { JobState, LogEntry } from '../core/job-types.js';
import { IrisError } from '../errors.js';
import { requireConnection } from './cli-context.js';
import type { CliIo } from './cli-context.js';
import { formatJobSummary, formatLogLine, formatTable, jobListRow } from './cli-format.js';
import { parseNumberFlag } from './cli-options.js';

const LEVELS: Readonly<Record<string, number>> = { debug: 10, info: 20, warn: 30, warning: 30, error: 40, critical: 50 };
const STATES = new Set<JobState>(['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'KILLED', 'WORKER_FAILED', 'UNSCHEDULABLE']);

async function withClient<T>(controller: string | undefined, io: CliIo, fn: (c: IrisClient) => Promise<T>): Promise<T> {
  await using connection = await requireConnection(controller, io.env);
  return await connection.use(fn);
}

/** `iris job list [--state S] [--prefix P] [--json]`. */
export async function jobListCommand(flags: { controller?: string; state?: string; prefix?: string; json?: boolean }, io: CliIo): Promise<number> {
  const state = flags.state?.toUpperCase() as JobState | undefined;
  if (state !== undefined && !STATES.has(state)) throw new IrisError('IRIS_INVALID_ARGUMENT', `--state "${flags.state}": expected one of ${[...STATES].join(', ')}`);
  return withClient(flags.controller, io, async (c) => {
    const jobs = await c.listJobs({ prefix: flags.prefix, states: state ? [state] : [], limit: 500 });
    if (flags.json) io.stdout(`${JSON.stringify(jobs, null, 2)}\n`);
    else io.stdout(`${formatTable(['JOB ID', 'STATE', 'TASKS', 'RESOURCES', 'SUBMITTED', 'REASON'], jobs.map(jobListRow))}\n`);
    return 0;
  });
}

/** Flags of `iris job logs`. */
export interface JobLogsFlags {
  controller?: string;
  follow?: boolean;
  sinceSeconds?: string;
  tail?: string;
  grep?: string;
  level?: string;
  attempt?: string;
  children: boolean;
  json?: boolean;
}

/** `iris job logs JOB [-f] [--since-seconds N] [--tail N] [--grep S] [--level L] [--attempt N] [--no-children]`. */
export async function jobLogsCommand(jobId: string, flags: JobLogsFlags, io: CliIo, signal: AbortSignal): Promise<number> {
  const minLevel = flags.level === undefined ? 0 : LEVELS[flags.level.toLowerCase()];
  if (minLevel === undefined) throw new IrisError('IRIS_INVALID_ARGUMENT', `--level "${flags.level}": expected debug, info, warning, error or critical`);
  const query = {
    jobId,
    includeChildren: flags.children,
    sinceMs: flags.sinceSeconds === undefined ? 0 : Date.now() - parseNumberFlag('--since-seconds', flags.sinceSeconds) * 1000,
    ...(flags.tail === undefined ? {} : { tail: true, maxLines: parseNumberFlag('--tail', flags.tail, true) }),
    substring: flags.grep ?? '',
    minLevel,
    ...(flags.attempt === undefined ? {} : { attemptId: parseNumberFlag('--attempt', flags.attempt, true) }),
  };
  // --json: one JSON object per entry, all on stdout, so the stream's order survives a pipe.
  const print = flags.json
    ? (e: LogEntry) => io.stdout(`${JSON.stringify(e)}\n`)
    : (e: LogEntry) => (e.source === 'stderr' ? io.stderr : io.stdout)(`${formatLogLine(jobId, e)}\n`);
  return withClient(flags.controller, io, async (c) => {
    // A job pruned from the controller's database may still have its logs in the archive.
    const gone = await c.getJob(jobId).then(
      () => undefined,
      (e: unknown) => {
        if (IrisError.hasCode(e, 'IRIS_JOB_NOT_FOUND')) return e;
        throw e;
      },
    );
    if (flags.follow) {
      // A pruned job is followed like any ended one: the controller streams its archived lines, then done.
      let end: JobState | undefined;
      try {
        for await (const ev of c.followLogs(query, { signal })) {
          ev.entries.forEach(print);
          if (ev.done) {
            end = ev.jobState;
            break;
          }
        }
      } catch (e) {
        if (!signal.aborted) throw e;
      }
      if (end === undefined) return signal.aborted ? 130 : 0;
      // On stderr, so stdout holds only the lines (and --json stays one entry per line).
      const state = TERMINAL_JOB_STATES.has(end) ? ` ${end}` : '';
      io.stderr(gone === undefined ? `iris: job ${jobId} ended${state}\n` : `iris: job ${jobId} ended${state} and was pruned from the controller; its logs were read from the log archive\n`);
      return 0;
    }
    let cursor = '';
    for (;;) {
      const page = await c.fetchLogs({ ...query, cursor });
      if (gone !== undefined && cursor === '' && page.entries.length === 0) throw gone;
      page.entries.forEach(print);
      cursor = page.cursor;
      if (!page.truncated || query.tail) return 0;
    }
  });
}

/** `iris job stop JOB... [--no-include-children]`. */
export async function jobStopCommand(jobIds: readonly string[], flags: { controller?: string; includeChildren: boolean }, io: CliIo): Promise<number> {
  return withClient(flags.controller, io, async (c) => {
    for (const id of jobIds) {
      await c.terminateJob(id, { includeChildren: flags.includeChildren });
      io.stdout(`stopped ${id}\n`);
    }
    return 0;
  });
}

/** `iris job summary JOB [--json]`. */
export async function jobSummaryCommand(jobId: string, flags: { controller?: string; json?: boolean }, io: CliIo): Promise<number> {
  return withClient(flags.controller, io, async (c) => {
    const job = await c.getJob(jobId, { includeTasks: true });
    io.stdout(flags.json ? `${JSON.stringify(job, null, 2)}\n` : `${formatJobSummary(job)}\n`);
    return 0;
  });
}

/** `iris job bug-report JOB [--json] [--log-lines N]`: one document with what an operator asks for first. */
export async function jobBugReportCommand(jobId: string, flags: { controller?: string; json?: boolean; logLines: string }, io: CliIo): Promise<number> {
  const logLines = parseNumberFlag('--log-lines', flags.logLines, true);
  const { buildBugReport, formatBugReport } = await import('./bug-report.js');
  return withClient(flags.controller, io, async (c) => {
    const report = await buildBugReport(c, jobId, { logLines });
    io.stdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatBugReport(report));
    return 0;
  });
}
