import { randomBytes } from 'node:crypto';
import { exists, readText, writeText } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { createStateHarness } from '../../test/helpers/controller-harness.js';
import { LogQuery } from '../gen/iris/v1/controller.js';
import { LogSource, TaskState } from '../gen/iris/v1/types.js';
import type { LogEntry } from '../gen/iris/v1/types.js';
import { LogArchive } from './log-archive.js';
import { LogArchiver, queryLogs } from './log-archiver.js';

function setup() {
  const archive = new LogArchive(`memory://log-archive-${randomBytes(4).toString('hex')}/logs`);
  const h = createStateHarness({ logArchive: archive });
  const archiver = new LogArchiver({ state: h.state, settleMs: 1000, retentionMs: 60_000, intervalMs: 1000, warn: (m) => h.warnings.push(m) });
  h.registerWorker('w1');
  return { archive, archiver, h };
}

function line(h: ReturnType<typeof setup>['h'], taskId: string, seq: number, data: string, level = 20): LogEntry {
  const task = h.state.store.task(taskId)!;
  return { taskId, attemptId: task.current_attempt_id, attemptUid: h.uidOf(taskId), seq, timestampMs: h.now + seq, source: LogSource.LOG_SOURCE_STDOUT, level, data };
}

function rowsOf(h: ReturnType<typeof setup>['h'], jobId: string): number {
  return (h.state.store.db.prepare('SELECT COUNT(*) AS n FROM logs WHERE job_id = ?').get(jobId) as { n: number }).n;
}

/** Runs `/alice/train` (2 tasks) to SUCCEEDED with three lines per task. */
function runJob(s: ReturnType<typeof setup>): string {
  const { h } = s;
  const jobId = h.launch('/alice/train', { replicas: 2, resources: { cpuMillicores: 100, memoryBytes: 2 ** 20 } });
  h.tick();
  for (const t of [0, 1]) {
    const taskId = `${jobId}/${t}`;
    h.report(taskId, TaskState.TASK_STATE_RUNNING);
    h.state.logs.append([0, 1, 2].map((seq) => line(h, taskId, seq, `task ${t} line ${seq}`, seq === 2 ? 40 : 20)));
    h.report(taskId, TaskState.TASK_STATE_SUCCEEDED);
  }
  expect(h.state.store.job(jobId)!.finished_at_ms).toBeGreaterThan(0);
  return jobId;
}

describe('LogArchiver', () => {
  it('archives an ended job once it settles, in the documented layout, then prunes only archived lines', async () => {
    const s = setup();
    const { h, archive, archiver } = s;
    const jobId = runJob(s);
    expect(await archiver.pass()).toEqual({ archived: 0, pruned: 0 }); // not settled yet
    h.advance(1000);
    expect(await archiver.pass()).toEqual({ archived: 1, pruned: 0 });
    const file = await readText(`${archive.prefix}/alice/train/1/0.jsonl`);
    expect(file.trim().split('\n').map((l) => JSON.parse(l) as { data: string; source: string; seq: number })).toEqual([
      expect.objectContaining({ taskId: `${jobId}/1`, attemptId: 0, seq: 0, source: 'stdout', level: 20, data: 'task 1 line 0' }),
      expect.objectContaining({ seq: 1, data: 'task 1 line 1' }),
      expect.objectContaining({ seq: 2, level: 40, data: 'task 1 line 2' }),
    ]);
    expect(JSON.parse(await readText(`${archive.prefix}/alice/train/job.json`))).toMatchObject({ jobId, state: expect.any(Number) });

    // A late line arrives: the job is archived again, merged, and the line is not pruned before that.
    h.state.logs.append([line(h, `${jobId}/0`, 3, 'late line')]);
    h.advance(60_000);
    expect(h.state.logArchive.hasUnarchivedLines(jobId)).toBe(true);
    expect(h.state.pruneJobs(0)).toBe(0); // the job holds an unarchived line: kept
    expect(await archiver.pass()).toEqual({ archived: 1, pruned: 7 });
    expect(rowsOf(h, jobId)).toBe(0);
    expect((await readText(`${archive.prefix}/alice/train/0/0.jsonl`)).trim().split('\n')).toHaveLength(4);
  });

  it('answers log queries from the archive once the lines are pruned or the job is gone, with the database\'s filters and paging', async () => {
    const s = setup();
    const { h, archiver } = s;
    const jobId = runJob(s);
    h.advance(60_000);
    await archiver.pass();
    expect(rowsOf(h, jobId)).toBe(0);
    const all = await queryLogs(h.state, LogQuery.fromPartial({ jobId }));
    expect(all.entries.map((e) => e.data)).toEqual(['task 0 line 0', 'task 1 line 0', 'task 0 line 1', 'task 1 line 1', 'task 0 line 2', 'task 1 line 2']);
    expect(all.truncated).toBe(false);
    const errors = await queryLogs(h.state, LogQuery.fromPartial({ jobId, minLevel: 40 }));
    expect(errors.entries.map((e) => e.data)).toEqual(['task 0 line 2', 'task 1 line 2']);
    const oneTask = await queryLogs(h.state, LogQuery.fromPartial({ taskId: `${jobId}/1`, substring: 'line 1' }));
    expect(oneTask.entries.map((e) => e.data)).toEqual(['task 1 line 1']);
    const tail = await queryLogs(h.state, LogQuery.fromPartial({ jobId, tail: true, maxLines: 2 }));
    expect(tail.entries.map((e) => e.data)).toEqual(['task 0 line 2', 'task 1 line 2']);
    // Paging: 4 lines, then the rest from the returned cursor.
    const first = await queryLogs(h.state, LogQuery.fromPartial({ jobId, maxLines: 4 }));
    expect(first).toMatchObject({ truncated: true });
    const rest = await queryLogs(h.state, LogQuery.fromPartial({ jobId, maxLines: 4, cursor: first.cursor }));
    expect([...first.entries, ...rest.entries].map((e) => e.data)).toEqual(all.entries.map((e) => e.data));
    expect(rest.truncated).toBe(false);
    await expect(queryLogs(h.state, LogQuery.fromPartial({ jobId, cursor: 'archive:x' }))).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });

    // The job itself is pruned: its logs are still found.
    expect(h.state.pruneJobs(0)).toBe(1);
    expect(h.state.store.job(jobId)).toBeUndefined();
    expect((await queryLogs(h.state, LogQuery.fromPartial({ jobId }))).entries).toHaveLength(6);
    // An unknown job with no archive is an empty page, as before.
    expect((await queryLogs(h.state, LogQuery.fromPartial({ jobId: '/alice/never' }))).entries).toEqual([]);
    // An id that is no job id never becomes a path: the database answers it (with nothing).
    expect((await queryLogs(h.state, LogQuery.fromPartial({ jobId: '/alice/../../etc' }))).entries).toEqual([]);
    expect(() => s.archive.jobUrl('/alice/..')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });

  it('archives over a marker it cannot read, keeping the files beside it', async () => {
    const s = setup();
    const { h, archive, archiver } = s;
    const jobId = runJob(s);
    await writeText(`${archive.prefix}/alice/train/job.json`, 'not json');
    h.advance(1000);
    expect(await archiver.pass()).toMatchObject({ archived: 1 });
    expect(JSON.parse(await readText(`${archive.prefix}/alice/train/job.json`))).toMatchObject({ jobId });
  });

  it('finishes an archive interrupted between writing files and recording them, without doubling a line', async () => {
    const s = setup();
    const { h, archive, archiver } = s;
    const jobId = runJob(s);
    h.advance(1000);
    // A controller stopped here had written the files but not recorded it.
    const [due] = h.state.logArchive.pending(h.now, 10);
    await archive.archiveJob(due!, h.state.logArchive.lines(jobId), h.now);
    expect(h.state.logArchive.hasUnarchivedLines(jobId)).toBe(true);
    expect(await archiver.pass()).toMatchObject({ archived: 1 });
    expect(h.state.logArchive.hasUnarchivedLines(jobId)).toBe(false);
    expect((await readText(`${archive.prefix}/alice/train/0/0.jsonl`)).trim().split('\n')).toHaveLength(3);
    expect(await archiver.pass()).toMatchObject({ archived: 0 });
  });

  it('replaces the archive of an earlier job of the same id when the new one is archived', async () => {
    const s = setup();
    const { h, archive, archiver } = s;
    runJob(s);
    h.advance(60_000);
    expect(await archiver.pass()).toEqual({ archived: 1, pruned: 6 });
    expect(await exists(`${archive.prefix}/alice/train/1/0.jsonl`)).toBe(true);
    h.advance(1000);
    expect(h.state.pruneJobs(0)).toBe(1);
    const jobId = h.launch('/alice/train', { resources: { cpuMillicores: 100, memoryBytes: 2 ** 20 } });
    h.tick();
    h.report(`${jobId}/0`, TaskState.TASK_STATE_RUNNING);
    h.state.logs.append([line(h, `${jobId}/0`, 0, 'second run')]);
    // Before it is archived, the new job's logs are its own (the database's), not the earlier job's archive.
    expect((await queryLogs(h.state, LogQuery.fromPartial({ jobId }))).entries.map((e) => e.data)).toEqual(['second run']);
    h.report(`${jobId}/0`, TaskState.TASK_STATE_SUCCEEDED);
    h.advance(1000);
    await archiver.pass();
    expect(await exists(`${archive.prefix}/alice/train/1/0.jsonl`)).toBe(false);
    expect((await readText(`${archive.prefix}/alice/train/0/0.jsonl`)).trim().split('\n').map((l) => (JSON.parse(l) as { data: string }).data)).toEqual(['second run']);
  });
});
