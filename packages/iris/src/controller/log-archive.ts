import { RiggingError, exists, filesystemFor, listFilesRecursive, ls, mapLimit, prefixJoin, readText, rm, writeText } from '@marin/rigging';
import { IrisError } from '../errors.js';
import type { LogQuery } from '../gen/iris/v1/controller.js';
import type { LogEntry } from '../gen/iris/v1/types.js';
import { logEntryFromProto, logEntryToProto } from '../wire/proto-views.js';
import type { LogEntry as DomainLogEntry } from '../core/job-types.js';
import { parseJobName, parseTaskId } from '../core/job-names.js';
import { DEFAULT_LOG_LINES, MAX_LOG_LINES, MAX_PAGE_BYTES } from './store/log-store.js';
import type { LogPage } from './store/log-store.js';
import type { JobToArchive, StoredLogLine } from './store/log-archive-store.js';

/** A cursor into an archived result (the number of entries already returned). */
const ARCHIVE_CURSOR = 'archive:';
/** Files read at once from the archive. */
const READ_CONCURRENCY = 8;

/** What `job.json` beside a job's task directories says (`state` is the wire `JobState` number). */
export interface JobMarker {
  readonly jobId: string;
  readonly submittedAtMs: number;
  readonly state: number;
  readonly archivedAtMs: number;
}

/**
 * Task logs in object storage (any rigging URL: `gs://bucket/iris-logs`, a local directory), one
 * JSON-lines file per task attempt:
 *
 * ```
 * <prefix>/<user>/<job>[/<child>...]/job.json               { jobId, submittedAtMs, state, archivedAtMs }
 * <prefix>/<user>/<job>[/<child>...]/<task index>/<attempt id>.jsonl
 * ```
 *
 * Each line is the object `iris job logs --json` prints (`taskId`, `attemptId`, `attemptUid`, `seq`,
 * `timestampMs`, `source`, `level`, `data`), in `seq` order. Job names are never all digits, so a
 * child job's directory never collides with a task's. Every file is written whole (rigging's atomic
 * writes) and merged with what it already holds, so archiving a job again is harmless.
 */
export class LogArchive {
  constructor(readonly prefix: string) {}

  /**
   * Where one job's files live (its children below it).
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for an id that is not a job id (so no path leaves the archive)
   */
  jobUrl(jobId: string): string {
    return prefixJoin(this.prefix, parseJobName(jobId, 'job_id').id.slice(1));
  }

  /** The file of one task attempt. */
  attemptUrl(taskId: string, attemptId: number): string {
    const { jobId, index } = parseTaskId(taskId);
    return `${this.jobUrl(jobId)}/${index}/${attemptId}.jsonl`;
  }

  /**
   * Writes `lines` (a job's lines still in the database) into the job's attempt files, merged with
   * what the files hold, and the job's `job.json`. An archive left by an earlier job of the same id
   * (replaced at submission) is removed first.
   * @returns the highest row id written (0 for none)
   */
  async archiveJob(job: JobToArchive, lines: readonly StoredLogLine[], nowMs: number): Promise<number> {
    const jobUrl = this.jobUrl(job.jobId);
    const markerUrl = `${jobUrl}/job.json`;
    if (await exists(markerUrl)) {
      // An unreadable marker is rewritten below; the files beside it are kept (merged), never removed.
      const marker = parseMarker(await readText(markerUrl));
      if (marker !== undefined && marker.submittedAtMs !== job.submittedAtMs) await this.#removeTaskFiles(jobUrl);
    }
    const byAttempt = new Map<string, LogEntry[]>();
    let throughId = 0;
    for (const l of lines) {
      const url = this.attemptUrl(l.entry.taskId, l.entry.attemptId);
      let group = byAttempt.get(url);
      if (group === undefined) byAttempt.set(url, (group = []));
      group.push(l.entry);
      throughId = Math.max(throughId, l.id);
    }
    await mapLimit([...byAttempt], READ_CONCURRENCY, async ([url, entries]) => {
      const merged = new Map<string, LogEntry>();
      for (const e of await readAttemptFile(url)) merged.set(`${e.attemptUid}:${e.seq}`, e);
      for (const e of entries) merged.set(`${e.attemptUid}:${e.seq}`, e);
      const sorted = [...merged.values()].sort((a, b) => a.seq - b.seq);
      await writeText(url, sorted.map((e) => `${JSON.stringify(logEntryFromProto(e))}\n`).join(''));
    });
    const marker: JobMarker = { jobId: job.jobId, submittedAtMs: job.submittedAtMs, state: job.state, archivedAtMs: nowMs };
    await writeText(markerUrl, `${JSON.stringify(marker)}\n`);
    return throughId;
  }

  /**
   * The `job.json` the archive holds for `jobId` (what it knew of the job when it last archived it).
   * @returns undefined when the archive has no readable marker for the job
   */
  async readMarker(jobId: string): Promise<JobMarker | undefined> {
    try {
      return parseMarker(await readText(`${this.jobUrl(jobId)}/job.json`));
    } catch (e) {
      if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return undefined;
      throw e;
    }
  }

  /**
   * Runs a log query against the archive, with the same filters and page limits as the database.
   * @returns undefined when the archive holds no file for the job or task
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for a cursor that is not an archive cursor
   */
  async query(q: LogQuery): Promise<LogPage | undefined> {
    const files = await this.#filesOf(q);
    if (files.length === 0) return undefined;
    const all = (await mapLimit(files, READ_CONCURRENCY, readAttemptFile)).flat();
    const matching = all
      .filter((e) => (q.sinceMs <= 0 || e.timestampMs >= q.sinceMs) && (q.substring === '' || e.data.includes(q.substring)) && (q.minLevel <= 0 || e.level >= q.minLevel))
      .sort((a, b) => a.timestampMs - b.timestampMs || cmp(a.taskId, b.taskId) || a.attemptId - b.attemptId || a.seq - b.seq);
    const limit = Math.min(q.maxLines || DEFAULT_LOG_LINES, MAX_LOG_LINES);
    if (q.tail) return { entries: fitPage(matching.slice(-limit), true).page, cursor: `${ARCHIVE_CURSOR}${matching.length}`, truncated: matching.length > limit };
    const start = archiveCursorOffset(q.cursor);
    const { page, cut } = fitPage(matching.slice(start, start + limit), false);
    const end = start + page.length;
    return { entries: page, cursor: `${ARCHIVE_CURSOR}${end}`, truncated: cut || end < matching.length };
  }

  /** The attempt files a query reads (filtered by attempt id), or [] when there are none. */
  async #filesOf(q: LogQuery): Promise<string[]> {
    const byTask = q.taskId !== '';
    const root = byTask ? `${this.jobUrl(parseTaskId(q.taskId).jobId)}/${parseTaskId(q.taskId).index}` : this.jobUrl(q.jobId);
    const children = !byTask && (q.includeChildren ?? true);
    const shape = byTask ? /^(\d+)\.jsonl$/ : children ? /(?:^|\/)\d+\/(\d+)\.jsonl$/ : /^\d+\/(\d+)\.jsonl$/;
    let listed: { rel: string }[];
    try {
      listed = await listFilesRecursive(filesystemFor(root), root);
    } catch (e) {
      if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return [];
      throw e;
    }
    return listed
      .filter((f) => {
        const m = shape.exec(f.rel);
        return m !== null && (q.attemptId === undefined || q.attemptId < 0 || Number(m[1]) === q.attemptId);
      })
      .map((f) => `${root}/${f.rel}`);
  }

  /** Removes a job's task directories and marker (not its children's). */
  async #removeTaskFiles(jobUrl: string): Promise<void> {
    for (const entry of await ls(jobUrl)) {
      const name = entry.url.replace(/\/+$/, '').slice(entry.url.replace(/\/+$/, '').lastIndexOf('/') + 1);
      if (/^\d+$/.test(name) || name === 'job.json') await rm(entry.url, { recursive: true });
    }
  }
}

function parseMarker(text: string): JobMarker | undefined {
  try {
    const m = JSON.parse(text) as Partial<JobMarker> | null;
    return typeof m?.submittedAtMs === 'number' ? (m as JobMarker) : undefined;
  } catch {
    return undefined;
  }
}

/** True when `cursor` continues an archived result. */
export function isArchiveCursor(cursor: string): boolean {
  return cursor.startsWith(ARCHIVE_CURSOR);
}

function archiveCursorOffset(cursor: string): number {
  if (cursor === '') return 0;
  const n = Number(cursor.slice(ARCHIVE_CURSOR.length));
  if (!isArchiveCursor(cursor) || !Number.isInteger(n) || n < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `cursor "${cursor}" is not valid`);
  return n;
}

/** Keeps a page below the response size cap, as the database query does (at least one entry). */
function fitPage(entries: LogEntry[], fromEnd: boolean): { page: LogEntry[]; cut: boolean } {
  let bytes = 0;
  const ordered = fromEnd ? [...entries].reverse() : entries;
  const fit = ordered.findIndex((e) => (bytes += Buffer.byteLength(e.data) + 64) > MAX_PAGE_BYTES);
  if (fit < 0) return { page: entries, cut: false };
  const kept = ordered.slice(0, Math.max(1, fit));
  return { page: fromEnd ? kept.reverse() : kept, cut: true };
}

async function readAttemptFile(url: string): Promise<LogEntry[]> {
  let text: string;
  try {
    text = await readText(url);
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return [];
    throw e;
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => logEntryToProto(JSON.parse(l) as DomainLogEntry));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
