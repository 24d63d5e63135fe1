import type { Statement } from 'better-sqlite3';
import type { LogEntry } from '../../gen/iris/v1/types.js';
import { JobState } from '../../gen/iris/v1/types.js';
import type { ControllerDatabase } from './database.js';
import { logEntryOf } from './log-store.js';
import type { LogRow } from './log-store.js';

const TERMINAL_JOB = `(${JobState.JOB_STATE_SUCCEEDED}, ${JobState.JOB_STATE_FAILED}, ${JobState.JOB_STATE_KILLED}, ${JobState.JOB_STATE_WORKER_FAILED}, ${JobState.JOB_STATE_UNSCHEDULABLE})`;

/** A terminal job whose log lines are not all archived yet. */
export interface JobToArchive {
  readonly jobId: string;
  readonly submittedAtMs: number;
  readonly state: number;
}

/** A job pruned from the database whose logs are archived: what its `log_archive` row remembers. */
export interface PrunedJobRow {
  readonly jobId: string;
  readonly submittedAtMs: number;
  /** The state it ended in (`JOB_STATE_UNSPECIFIED` for a job pruned before this was recorded). */
  readonly state: JobState;
  /** When it ended (0 when not recorded). */
  readonly finishedAtMs: number;
  /** When it was pruned (0 when not recorded). */
  readonly prunedAtMs: number;
  /** When its logs were last archived. */
  readonly archivedAtMs: number;
}

/** A job's log lines as stored, with the row id that orders them. */
export interface StoredLogLine {
  readonly id: number;
  readonly entry: LogEntry;
}

/**
 * The SQL of the log archive (the `log_archive` table and the `logs` rows it covers): which ended
 * jobs still need archiving, a job's lines, what is archived, and pruning archived lines.
 */
export class LogArchiveStore {
  readonly #s: Record<'pendingAll' | 'pendingSince' | 'maxLogId' | 'lines' | 'mark' | 'prunable' | 'prune' | 'markPruned' | 'pruned' | 'unarchived' | 'jobPruned' | 'prunedJob', Statement>;

  constructor(private readonly db: ControllerDatabase) {
    const p = (sql: string) => db.prepare(sql);
    this.#s = {
      // Ended before the cutoff (late lines of a just-ended attempt settle first) and never archived
      // (or archived for an earlier job of the same id), or with lines that arrived after the archive.
      pendingAll: p(`SELECT j.job_id, j.submitted_at_ms, j.state FROM jobs j LEFT JOIN log_archive a ON a.job_id = j.job_id
        WHERE j.state IN ${TERMINAL_JOB} AND j.finished_at_ms > 0 AND j.finished_at_ms <= @cutoff
          AND (a.job_id IS NULL OR a.submitted_at_ms != j.submitted_at_ms
               OR EXISTS (SELECT 1 FROM logs l WHERE l.job_id = j.job_id AND l.id > a.archived_through_id))
        LIMIT @limit`),
      // The same, knowing what the previous pass looked at: only jobs that ended since @from can be
      // unarchived (\`+j.state\` keeps SQLite on the jobs_finished range, not every terminal job), and
      // late lines are among the rows past @after (NOT INDEXED: a rowid range, not a scan of logs_job;
      // the + signs keep those jobs looked up by id).
      pendingSince: p(`SELECT j.job_id, j.submitted_at_ms, j.state FROM jobs j LEFT JOIN log_archive a ON a.job_id = j.job_id
        WHERE j.finished_at_ms > 0 AND j.finished_at_ms >= @from AND j.finished_at_ms <= @cutoff AND +j.state IN ${TERMINAL_JOB}
          AND (a.job_id IS NULL OR a.submitted_at_ms != j.submitted_at_ms)
        UNION
        SELECT j.job_id, j.submitted_at_ms, j.state FROM (SELECT DISTINCT job_id FROM logs NOT INDEXED WHERE id > @after) n
          JOIN jobs j ON j.job_id = n.job_id JOIN log_archive a ON a.job_id = j.job_id AND a.submitted_at_ms = j.submitted_at_ms
        WHERE +j.state IN ${TERMINAL_JOB} AND +j.finished_at_ms > 0 AND +j.finished_at_ms <= @cutoff
          AND EXISTS (SELECT 1 FROM logs l WHERE l.job_id = j.job_id AND l.id > a.archived_through_id)
        LIMIT @limit`),
      maxLogId: p('SELECT COALESCE(MAX(id), 0) AS id FROM logs'),
      lines: p('SELECT id, task_id, attempt_id, attempt_uid, seq, timestamp_ms, source, level, data FROM logs WHERE job_id = ? ORDER BY id'),
      mark: p(`INSERT INTO log_archive (job_id, submitted_at_ms, archived_through_id, archived_at_ms) VALUES (?, ?, ?, ?)
        ON CONFLICT(job_id) DO UPDATE SET archived_at_ms = excluded.archived_at_ms,
          archived_through_id = CASE WHEN log_archive.submitted_at_ms = excluded.submitted_at_ms
            THEN max(log_archive.archived_through_id, excluded.archived_through_id) ELSE excluded.archived_through_id END,
          pruned_through_id = CASE WHEN log_archive.submitted_at_ms = excluded.submitted_at_ms THEN log_archive.pruned_through_id ELSE 0 END,
          job_state = CASE WHEN log_archive.submitted_at_ms = excluded.submitted_at_ms THEN log_archive.job_state ELSE 0 END,
          job_finished_at_ms = CASE WHEN log_archive.submitted_at_ms = excluded.submitted_at_ms THEN log_archive.job_finished_at_ms ELSE 0 END,
          job_pruned_at_ms = CASE WHEN log_archive.submitted_at_ms = excluded.submitted_at_ms THEN log_archive.job_pruned_at_ms ELSE 0 END,
          submitted_at_ms = excluded.submitted_at_ms`),
      prunable: p(`SELECT a.job_id, a.archived_through_id FROM log_archive a JOIN jobs j ON j.job_id = a.job_id AND j.submitted_at_ms = a.submitted_at_ms
        WHERE j.finished_at_ms > 0 AND j.finished_at_ms <= ? AND a.pruned_through_id < a.archived_through_id`),
      prune: p('DELETE FROM logs WHERE job_id = ? AND id <= ?'),
      markPruned: p('UPDATE log_archive SET pruned_through_id = ? WHERE job_id = ?'),
      // Only the current job of each id: an earlier job's pruned lines say nothing about a new one.
      pruned: p(`SELECT 1 FROM log_archive a JOIN jobs j ON j.job_id = a.job_id AND j.submitted_at_ms = a.submitted_at_ms
        WHERE a.pruned_through_id > 0 AND (a.job_id = ? OR (? AND substr(a.job_id, 1, ?) = ?)) LIMIT 1`),
      unarchived: p(`SELECT 1 FROM jobs j LEFT JOIN log_archive a ON a.job_id = j.job_id AND a.submitted_at_ms = j.submitted_at_ms
        WHERE j.job_id = ? AND (a.job_id IS NULL OR EXISTS (SELECT 1 FROM logs l WHERE l.job_id = j.job_id AND l.id > a.archived_through_id))`),
      jobPruned: p(`UPDATE log_archive SET job_state = @state, job_finished_at_ms = @finished, job_pruned_at_ms = @now
        WHERE job_id = @jobId AND submitted_at_ms = @submitted`),
      // A row whose job is no longer in `jobs`: the job was pruned (or the database lost it).
      prunedJob: p(`SELECT a.job_id, a.submitted_at_ms, a.job_state, a.job_finished_at_ms, a.job_pruned_at_ms, a.archived_at_ms FROM log_archive a
        WHERE a.job_id = ? AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.job_id = a.job_id)`),
    };
  }

  /**
   * Ended jobs (finished at or before `finishedBeforeMs`) never archived, or holding lines the archive
   * lacks. A caller that already looked at earlier rounds narrows the search: `since.finishedFromMs`
   * (only jobs that ended from then on can be unarchived) and `since.linesAfterId` (late lines are
   * among the rows stored after it). Without `since`, every job and line is looked at.
   */
  pending(finishedBeforeMs: number, limit: number, since?: { finishedFromMs: number; linesAfterId: number }): JobToArchive[] {
    const rows = (
      since === undefined
        ? this.#s.pendingAll.all({ cutoff: finishedBeforeMs, limit })
        : this.#s.pendingSince.all({ cutoff: finishedBeforeMs, from: since.finishedFromMs, after: since.linesAfterId, limit })
    ) as { job_id: string; submitted_at_ms: number; state: number }[];
    return rows.map((r) => ({ jobId: r.job_id, submittedAtMs: r.submitted_at_ms, state: r.state }));
  }

  /** The highest row id of the `logs` table (0 when empty). */
  maxLogId(): number {
    return (this.#s.maxLogId.get() as { id: number }).id;
  }

  /** Every stored line of one job (not its children), in arrival order. */
  lines(jobId: string): StoredLogLine[] {
    return (this.#s.lines.all(jobId) as LogRow[]).map((r) => ({ id: r.id, entry: logEntryOf(r) }));
  }

  /** Records that `jobId`'s lines up to row `throughId` are in the archive. */
  markArchived(jobId: string, submittedAtMs: number, throughId: number, nowMs: number): void {
    this.#s.mark.run(jobId, submittedAtMs, throughId, nowMs);
  }

  /**
   * Deletes the archived lines of jobs that ended at or before `finishedBeforeMs` (never a line that
   * is not archived). @returns how many lines were deleted.
   */
  pruneArchived(finishedBeforeMs: number): number {
    let deleted = 0;
    this.db.transaction(() => {
      for (const r of this.#s.prunable.all(finishedBeforeMs) as { job_id: string; archived_through_id: number }[]) {
        deleted += this.#s.prune.run(r.job_id, r.archived_through_id).changes;
        this.#s.markPruned.run(r.archived_through_id, r.job_id);
      }
    })();
    return deleted;
  }

  /** True when lines of the current `jobId` (or, with `children`, of a job below it) were deleted after archiving. */
  hasPrunedLines(jobId: string, children: boolean): boolean {
    return this.#s.pruned.get(jobId, children ? 1 : 0, jobId.length + 1, `${jobId}/`) !== undefined;
  }

  /**
   * Records that `job` (archived, about to be deleted from `jobs`) was pruned at `nowMs`, with the
   * state it ended in, so {@link prunedJob} can describe it. A job never archived has no row and is
   * left alone.
   */
  markJobPruned(job: { jobId: string; submittedAtMs: number; state: JobState; finishedAtMs: number }, nowMs: number): void {
    this.#s.jobPruned.run({ jobId: job.jobId, submitted: job.submittedAtMs, state: job.state, finished: job.finishedAtMs, now: nowMs });
  }

  /** What is remembered of `jobId` once it is gone from `jobs` with its logs archived; undefined for a job in `jobs` or never archived. */
  prunedJob(jobId: string): PrunedJobRow | undefined {
    const r = this.#s.prunedJob.get(jobId) as
      | { job_id: string; submitted_at_ms: number; job_state: JobState; job_finished_at_ms: number; job_pruned_at_ms: number; archived_at_ms: number }
      | undefined;
    if (r === undefined) return undefined;
    return { jobId: r.job_id, submittedAtMs: r.submitted_at_ms, state: r.job_state, finishedAtMs: r.job_finished_at_ms, prunedAtMs: r.job_pruned_at_ms, archivedAtMs: r.archived_at_ms };
  }

  /** True when `jobId` exists and has lines the archive does not hold yet (or was never archived). */
  hasUnarchivedLines(jobId: string): boolean {
    return this.#s.unarchived.get(jobId) !== undefined;
  }
}
