import { setTimeout as sleep } from 'node:timers/promises';
import type { LogQuery } from '../gen/iris/v1/controller.js';
import { isJobId, parseTaskId } from '../core/job-names.js';
import type { ControllerState } from './controller-state.js';
import { isArchiveCursor } from './log-archive.js';
import type { LogPage } from './store/log-store.js';

/** Jobs archived per pass. */
const JOBS_PER_PASS = 50;

/** Options of {@link LogArchiver}. */
export interface LogArchiverOptions {
  /** Its `archive` is where the lines go. */
  readonly state: ControllerState;
  /** How long after a job ends its lines are archived (late lines of its last attempts arrive first). */
  readonly settleMs: number;
  /** How long archived lines stay in the database after their job ended. */
  readonly retentionMs: number;
  /** Time between passes. */
  readonly intervalMs: number;
  readonly warn: (message: string) => void;
}

/**
 * Copies the logs of ended jobs to the archive and prunes archived lines from the database. All it
 * has done is recorded in the `log_archive` table only after the files are written, so a controller
 * stopped mid-pass archives the same jobs again at its next start (the writes merge, nothing is
 * doubled) and no line is deleted before it is archived.
 */
export class LogArchiver {
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;
  #lastError = '';
  /**
   * What the last completed pass looked at: jobs that ended before `finishedFromMs` and log rows up to
   * `linesAfterId` (undefined until a pass completes, so the first, at start, looks at everything).
   */
  #seen: { finishedFromMs: number; linesAfterId: number } | undefined;

  constructor(private readonly options: LogArchiverOptions) {}

  /** Starts the passes (the first at once). */
  start(): void {
    this.#running ??= this.#loop();
  }

  /**
   * One pass: archives the jobs that are due, then prunes archived lines past the retention.
   * @returns the jobs archived and the lines deleted
   */
  async pass(): Promise<{ archived: number; pruned: number }> {
    const { state } = this.options;
    const archive = state.archive;
    if (archive === undefined) return { archived: 0, pruned: 0 };
    const logArchive = state.logArchive;
    let archived = 0;
    // Late lines can only be among the rows stored since the last completed pass looked.
    const seenThrough = logArchive.maxLogId();
    let cutoff: number;
    for (;;) {
      const now = state.now();
      cutoff = now - this.options.settleMs;
      const due = logArchive.pending(cutoff, JOBS_PER_PASS, this.#seen);
      for (const job of due) {
        const lines = logArchive.lines(job.jobId);
        const throughId = await archive.archiveJob(job, lines, now);
        logArchive.markArchived(job.jobId, job.submittedAtMs, throughId, state.now());
        archived++;
        if (this.#stop.signal.aborted) return { archived, pruned: 0 };
      }
      if (due.length < JOBS_PER_PASS) break;
    }
    // Inclusive bounds next time: a job ending in the very millisecond of this cutoff is looked at again.
    this.#seen = { finishedFromMs: cutoff, linesAfterId: seenThrough };
    const pruned = logArchive.pruneArchived(state.now() - this.options.retentionMs);
    return { archived, pruned };
  }

  /** Stops after the job being archived now; what is left is archived at the next start. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  async #loop(): Promise<void> {
    while (!this.#stop.signal.aborted) {
      try {
        await this.pass();
        this.#lastError = '';
      } catch (e) {
        // The storage is down or refuses: keep the lines and try again next pass, warning once per cause.
        const message = `log archive to ${this.options.state.archive?.prefix ?? ''} failed: ${e instanceof Error ? e.message : String(e)}`;
        if (message !== this.#lastError) this.options.warn(message);
        this.#lastError = message;
      }
      await sleep(this.options.intervalMs, undefined, { signal: this.#stop.signal }).catch(() => undefined);
    }
  }
}

/**
 * A log query answered from the database first, then from the archive when the lines it asks for
 * were pruned (or the job itself is gone): what `FetchLogs` and the dashboard's log page read.
 */
export async function queryLogs(state: ControllerState, q: LogQuery): Promise<LogPage> {
  const archive = state.archive;
  if (archive === undefined) return state.logs.query(q);
  if (isArchiveCursor(q.cursor)) return (await archive.query(q)) ?? { entries: [], cursor: q.cursor, truncated: false };
  if (q.cursor === '') {
    const jobId = q.taskId !== '' ? jobOfTask(q.taskId) : q.jobId;
    const children = q.taskId === '' && (q.includeChildren ?? true);
    if (isJobId(jobId) && (state.store.job(jobId) === undefined || state.logArchive.hasPrunedLines(jobId, children))) {
      const archived = await archive.query(q);
      if (archived !== undefined) return archived;
    }
  }
  return state.logs.query(q);
}

/** The job of a task id, or '' for a malformed one. */
function jobOfTask(taskId: string): string {
  try {
    return parseTaskId(taskId).jobId;
  } catch {
    return '';
  }
}
