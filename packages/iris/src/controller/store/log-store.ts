import type { LogQuery } from '../../gen/iris/v1/controller.js';
import type { LogEntry } from '../../gen/iris/v1/types.js';
import { IrisError } from '../../errors.js';
import type { ControllerDatabase } from './database.js';
import { parseTaskId } from '../../core/job-names.js';

/** Default and maximum `max_lines` of a log query. */
export const DEFAULT_LOG_LINES = 1000;
/** The largest `max_lines` a log query may ask for. */
export const MAX_LOG_LINES = 10_000;
const MAX_LINE_BYTES = 64 * 1024;
/** Largest page of log text one response carries. */
export const MAX_PAGE_BYTES = 1024 * 1024;

/** One page of a log query. */
export interface LogPage {
  readonly entries: LogEntry[];
  /** Opaque position after the last returned entry; pass it back to continue. */
  readonly cursor: string;
  /** True when more matching entries exist beyond this page. */
  readonly truncated: boolean;
}

/** Where task logs are kept; SQLite today, an external store later. */
export interface LogStore {
  /** Stores entries, ignoring duplicates of `(attempt_uid, seq)`. @returns how many were new. */
  append(entries: readonly LogEntry[]): number;
  /** Runs a query. */
  query(q: LogQuery): LogPage;
}

/** A row of the `logs` table. */
export interface LogRow {
  id: number;
  task_id: string;
  attempt_id: number;
  attempt_uid: string;
  seq: number;
  timestamp_ms: number;
  source: number;
  level: number;
  data: string;
}

/** The log entry a `logs` row holds. */
export function logEntryOf(r: LogRow): LogEntry {
  return { taskId: r.task_id, attemptId: r.attempt_id, attemptUid: r.attempt_uid, seq: r.seq, timestampMs: r.timestamp_ms, source: r.source, level: r.level, data: r.data };
}

/** The SQLite `LogStore` over the controller database's `logs` table. */
export class SqliteLogStore implements LogStore {
  private readonly insert;

  constructor(private readonly db: ControllerDatabase) {
    this.insert = db.prepare(`INSERT OR IGNORE INTO logs (job_id, task_id, attempt_id, attempt_uid, seq, timestamp_ms, source, level, data)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  }

  append(entries: readonly LogEntry[]): number {
    let added = 0;
    this.db.transaction(() => {
      for (const e of entries) {
        const { jobId } = parseTaskId(e.taskId);
        const data = Buffer.byteLength(e.data) > MAX_LINE_BYTES ? Buffer.from(e.data).subarray(0, MAX_LINE_BYTES).toString() : e.data;
        added += this.insert.run(jobId, e.taskId, e.attemptId, e.attemptUid, e.seq, e.timestampMs, e.source, e.level, data).changes;
      }
    })();
    return added;
  }

  query(q: LogQuery): LogPage {
    if (q.taskId === '' && q.jobId === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'log query needs task_id or job_id');
    if (q.maxLines < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', 'max_lines must be >= 0');
    const limit = Math.min(q.maxLines || DEFAULT_LOG_LINES, MAX_LOG_LINES);
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q.taskId !== '') {
      where.push('task_id = ?');
      args.push(q.taskId);
    } else if (q.includeChildren ?? true) {
      where.push('(job_id = ? OR substr(job_id, 1, ?) = ?)');
      args.push(q.jobId, q.jobId.length + 1, `${q.jobId}/`);
    } else {
      where.push('job_id = ?');
      args.push(q.jobId);
    }
    if (q.attemptId !== undefined && q.attemptId >= 0) {
      where.push('attempt_id = ?');
      args.push(q.attemptId);
    }
    if (q.sinceMs > 0) {
      where.push('timestamp_ms >= ?');
      args.push(q.sinceMs);
    }
    if (q.substring !== '') {
      where.push('instr(data, ?) > 0');
      args.push(q.substring);
    }
    if (q.minLevel > 0) {
      where.push('level >= ?');
      args.push(q.minLevel);
    }
    const after = q.cursor === '' ? 0 : Number(q.cursor);
    if (!Number.isInteger(after) || after < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `cursor "${q.cursor}" is not valid`);
    if (!q.tail) {
      where.push('id > ?');
      args.push(after);
    }
    const order = q.tail ? 'DESC' : 'ASC';
    const rows = this.db.prepare(`SELECT * FROM logs WHERE ${where.join(' AND ')} ORDER BY id ${order} LIMIT ?`).all(...args, limit + 1) as LogRow[];
    let truncated = rows.length > limit;
    let page = rows.slice(0, limit);
    // Keep every response far below grpc-js's 4 MiB message cap: stop at ~1 MiB of text.
    let bytes = 0;
    const fit = page.findIndex((r) => (bytes += Buffer.byteLength(r.data) + 64) > MAX_PAGE_BYTES);
    if (fit >= 0) {
      page = page.slice(0, Math.max(1, fit));
      truncated = true;
    }
    if (q.tail) page.reverse();
    const maxId = page.reduce((m, r) => Math.max(m, r.id), after);
    return {
      entries: page.map(logEntryOf),
      cursor: String(maxId),
      truncated,
    };
  }
}
