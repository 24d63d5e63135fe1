import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createStateHarness } from '../../test/helpers/controller-harness.js';
import { LogQuery } from '../gen/iris/v1/controller.js';
import type { FollowLogsResponse } from '../gen/iris/v1/controller.js';
import { JobState, LogSource, TaskState } from '../gen/iris/v1/types.js';
import { LogArchive } from './log-archive.js';
import { LogArchiver } from './log-archiver.js';
import { findPrunedJob } from './pruned-job.js';
import { followLogEvents } from './services/log-follow.js';

function setup(withArchive = true) {
  const archive = withArchive ? new LogArchive(`memory://pruned-job-${randomBytes(4).toString('hex')}/logs`) : undefined;
  const h = createStateHarness(archive === undefined ? {} : { logArchive: archive });
  const archiver = new LogArchiver({ state: h.state, settleMs: 0, retentionMs: 0, intervalMs: 1000, warn: (m) => h.warnings.push(m) });
  h.registerWorker('w1');
  return { h, archiver };
}

/** Runs `/alice/gone` (one task, two lines) to FAILED; returns its id and when it ended. */
function runJob(h: ReturnType<typeof setup>['h']): { jobId: string; finishedAtMs: number } {
  const jobId = h.launch('/alice/gone', { resources: { cpuMillicores: 100, memoryBytes: 2 ** 20 } });
  h.tick();
  const taskId = `${jobId}/0`;
  h.report(taskId, TaskState.TASK_STATE_RUNNING);
  const attemptId = h.state.store.task(taskId)!.current_attempt_id;
  h.state.logs.append(
    ['first', 'second'].map((data, seq) => ({ taskId, attemptId, attemptUid: h.uidOf(taskId), seq, timestampMs: h.now + seq, source: LogSource.LOG_SOURCE_STDOUT, level: 20, data })),
  );
  h.report(taskId, TaskState.TASK_STATE_FAILED, { exitCode: 3 });
  const finishedAtMs = h.state.store.job(jobId)!.finished_at_ms;
  expect(finishedAtMs).toBeGreaterThan(0);
  return { jobId, finishedAtMs };
}

async function follow(h: ReturnType<typeof setup>['h'], jobId: string): Promise<FollowLogsResponse[]> {
  const out: FollowLogsResponse[] = [];
  const events = followLogEvents(h.state, LogQuery.fromPartial({ jobId }), { isClosing: () => false, signal: new AbortController().signal });
  for await (const ev of events) out.push(ev);
  return out;
}

describe('pruned jobs', () => {
  it('are remembered with the state they ended in and when they ended and were pruned', async () => {
    const { h, archiver } = setup();
    const { jobId, finishedAtMs } = runJob(h);
    expect(await findPrunedJob(h.state, jobId)).toBeUndefined(); // still in the database
    h.advance(1000);
    await archiver.pass();
    h.advance(5000);
    const prunedAtMs = h.now;
    expect(h.state.pruneJobs(0)).toBe(1);
    expect(await findPrunedJob(h.state, jobId)).toEqual({
      jobId,
      submittedAtMs: expect.any(Number),
      state: JobState.JOB_STATE_FAILED,
      finishedAtMs,
      prunedAtMs,
      archivedAtMs: expect.any(Number),
      logsUrl: h.state.archive!.jobUrl(jobId),
    });
    expect(await findPrunedJob(h.state, '/alice/never-ran')).toBeUndefined();
    expect(await findPrunedJob(h.state, '/alice/../x')).toBeUndefined();
    // gRPC GetJobStatus keeps its code (callers branch on it) and says why.
    expect(() => h.state.getJobStatus(jobId, false)).toThrow(expect.objectContaining({ code: 'IRIS_JOB_NOT_FOUND', message: expect.stringContaining('pruned') }));
    expect(() => h.state.getJobStatus('/alice/never-ran', false)).toThrow(expect.objectContaining({ code: 'IRIS_JOB_NOT_FOUND', message: expect.not.stringContaining('pruned') }));
  });

  it('are followed as ended jobs: their archived lines, then done with the state they ended in', async () => {
    const { h, archiver } = setup();
    const { jobId } = runJob(h);
    h.advance(1000);
    await archiver.pass();
    expect(h.state.pruneJobs(0)).toBe(1);
    const events = await follow(h, jobId);
    expect(events.flatMap((e) => e.entries.map((x) => x.data))).toEqual(['first', 'second']);
    expect(events.at(-1)).toMatchObject({ done: true, jobState: JobState.JOB_STATE_FAILED });
    await expect(follow(h, '/alice/never-ran')).rejects.toMatchObject({ code: 'IRIS_JOB_NOT_FOUND' });
  });

  it('fall back to the archive\'s job.json when the database does not say how the job ended, or lost its row', async () => {
    const { h, archiver } = setup();
    const { jobId } = runJob(h);
    h.advance(1000);
    await archiver.pass();
    expect(h.state.pruneJobs(0)).toBe(1);
    // Pruned by a controller that did not record it yet.
    h.state.store.db.prepare('UPDATE log_archive SET job_state = 0, job_finished_at_ms = 0, job_pruned_at_ms = 0').run();
    expect(await findPrunedJob(h.state, jobId)).toMatchObject({ jobId, state: JobState.JOB_STATE_FAILED, finishedAtMs: 0, prunedAtMs: 0 });
    // A database that lost the row: the archive still knows the job.
    h.state.store.db.prepare('DELETE FROM log_archive').run();
    expect(await findPrunedJob(h.state, jobId)).toMatchObject({ jobId, state: JobState.JOB_STATE_FAILED, prunedAtMs: 0, archivedAtMs: expect.any(Number) });
    expect((await follow(h, jobId)).at(-1)).toMatchObject({ done: true, jobState: JobState.JOB_STATE_FAILED });
  });

  it('stop being pruned when a new job takes the id', async () => {
    const { h, archiver } = setup();
    const { jobId } = runJob(h);
    h.advance(1000);
    await archiver.pass();
    expect(h.state.pruneJobs(0)).toBe(1);
    expect(h.launch('/alice/gone', { resources: { cpuMillicores: 100, memoryBytes: 2 ** 20 } })).toBe(jobId);
    expect(await findPrunedJob(h.state, jobId)).toBeUndefined();
    // The new job ends and is archived: its row forgets what the earlier job's pruning recorded.
    h.tick();
    h.report(`${jobId}/0`, TaskState.TASK_STATE_RUNNING);
    h.report(`${jobId}/0`, TaskState.TASK_STATE_SUCCEEDED);
    h.advance(1000);
    await archiver.pass();
    expect(h.state.store.db.prepare('SELECT job_state, job_finished_at_ms, job_pruned_at_ms FROM log_archive WHERE job_id = ?').get(jobId)).toEqual({
      job_state: 0,
      job_finished_at_ms: 0,
      job_pruned_at_ms: 0,
    });
    expect(h.state.pruneJobs(0)).toBe(1);
    expect(await findPrunedJob(h.state, jobId)).toMatchObject({ state: JobState.JOB_STATE_SUCCEEDED, prunedAtMs: h.now });
  });

  it('are not known without a log archive: nothing of them is left', async () => {
    const { h } = setup(false);
    const { jobId } = runJob(h);
    h.advance(1000);
    expect(h.state.pruneJobs(0)).toBe(1);
    expect(await findPrunedJob(h.state, jobId)).toBeUndefined();
    await expect(follow(h, jobId)).rejects.toMatchObject({ code: 'IRIS_JOB_NOT_FOUND' });
  });
});
