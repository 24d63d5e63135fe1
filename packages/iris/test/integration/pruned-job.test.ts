import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { pollUntil } from '@marin/rigging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError, LogStreamEvent } from '../../src/dashboard/api-types.js';
import { createIrisClient } from '../../src/client/iris-client.js';
import type { IrisClient } from '../../src/client/iris-client.js';
import { startController } from '../../src/cluster/start-controller.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';
import { buildDashboardAssets, launchChromium, SCREENSHOT_DIR } from '../helpers/browser.js';
import { runIris } from '../helpers/cli-process.js';
import { startWorkerProcess } from '../helpers/worker-process.js';
import type { WorkerProcess } from '../helpers/worker-process.js';

const LINES = ['pruned line 0', 'pruned line 1', 'pruned line 2'];

// A real controller (log archive in a temp dir) and a real worker process run a job; the job's lines
// are archived and pruned, then the job itself is pruned from the controller's database, as the
// control loop does after `jobRetentionMs`. What is left must still be readable.
describe('a job pruned from the controller (its logs in the archive)', () => {
  let root = '';
  let assets = '';
  let controller: ControllerHandle;
  let worker: WorkerProcess;
  let client: IrisClient;
  let browser: Browser | undefined;
  let jobId = '';
  let endedAtMs = 0;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'iris-pruned-'));
    assets = buildDashboardAssets();
    controller = await startController({
      stateDir: join(root, 'controller'),
      logArchive: join(root, 'log-archive'),
      logArchiveSettleMs: 0,
      logRetentionMs: 0,
      reconcileIntervalMs: 100,
      dashboardAssetsDir: assets,
    });
    worker = await startWorkerProcess({
      controllerAddress: controller.address,
      workerId: 'pruned-worker-0',
      cacheDir: join(root, 'worker'),
      cpuMillicores: 2000,
      memoryBytes: 2 * 1024 ** 3,
      registerRetryInitialMs: 100,
      logFlushIntervalMs: 100,
    });
    client = createIrisClient({ address: controller.address });
    const script = `${LINES.map((l) => `console.log(${JSON.stringify(l)})`).join(';')}; console.error('pruned to stderr')`;
    jobId = await client.launchJob({ name: 'pruned-job', command: ['node', '-e', script], user: 'alice' });
    const ended = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(ended.state).toBe('SUCCEEDED');
    endedAtMs = ended.finishedAtMs;
    expect(await pollUntil(async () => (await client.fetchLogs({ jobId })).entries.length === 4, { timeoutMs: 30_000, interval: 100 })).toBe(true);
    // The archiver's pass (as its timer runs it): archive the lines, then prune them (retention 0).
    const archived = async () => {
      await controller.archiveLogs();
      return controller.state.logArchive.hasPrunedLines(jobId, false);
    };
    expect(await pollUntil(archived, { timeoutMs: 30_000, interval: 200 })).toBe(true);
    // The control loop's pruning with a retention of 0: the job is gone from the database.
    expect(controller.state.pruneJobs(0)).toBe(1);
    expect(controller.state.store.job(jobId)).toBeUndefined();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await worker?.stop();
    await controller?.close();
    if (root) rmSync(root, { recursive: true, force: true });
    if (assets) rmSync(assets, { recursive: true, force: true });
  });

  it('`iris job logs -f` prints the archived lines, says on stderr that the job ended and was pruned, and exits 0 at once', async () => {
    const started = Date.now();
    const r = await runIris(['job', 'logs', '-f', jobId, '--controller', controller.address]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.includes('pruned line'))).toHaveLength(3);
    expect(r.stderr).toContain('pruned to stderr');
    expect(r.stderr).toMatch(/SUCCEEDED/);
    expect(r.stderr).toMatch(/pruned/);
    // "At once": no follow poll waiting for a job that will never change (generous bound for a loaded machine).
    expect(Date.now() - started).toBeLessThan(30_000);
    // --json keeps stdout to entries only.
    const json = await runIris(['job', 'logs', '-f', '--json', jobId, '--controller', controller.address]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { data: string }).data)).toEqual([...LINES, 'pruned to stderr']);
    // A job that never existed is still an error, as without -f.
    const missing = await runIris(['job', 'logs', '-f', '/alice/never-ran', '--controller', controller.address]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    // `iris job summary` of the pruned job: not found, and the message says it was pruned.
    const summary = await runIris(['job', 'summary', jobId, '--controller', controller.address]);
    expect(summary.code).not.toBe(0);
    expect(summary.stderr).toMatch(/pruned/);
  }, 60_000);

  it('gRPC FollowLogs streams the archive and ends with done and the state the job ended in', async () => {
    const events = [];
    for await (const ev of client.followLogs({ jobId })) events.push(ev);
    expect(events.flatMap((e) => e.entries.map((x) => x.data))).toEqual([...LINES, 'pruned to stderr']);
    expect(events.at(-1)).toMatchObject({ done: true, jobState: 'SUCCEEDED' });
  }, 60_000);

  it('`/api/job` answers IRIS_JOB_PRUNED (404) with what is known about the job and what is still available', async () => {
    const res = await fetch(`${controller.dashboardUrl!}api/job?id=${encodeURIComponent(jobId)}`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as ApiError;
    expect(body.code).toBe('IRIS_JOB_PRUNED');
    expect(body.prunedJob).toMatchObject({ jobId, state: 'SUCCEEDED', finishedAtMs: endedAtMs, logsArchived: true });
    expect(body.prunedJob!.prunedAtMs).toBeGreaterThanOrEqual(endedAtMs);
    // A job that never existed is still IRIS_JOB_NOT_FOUND.
    const missing = await fetch(`${controller.dashboardUrl!}api/job?id=${encodeURIComponent('/alice/never-ran')}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as ApiError).code).toBe('IRIS_JOB_NOT_FOUND');
  });

  it('`/api/logs/stream` sends the archived lines and a final done event', async () => {
    const res = await fetch(`${controller.dashboardUrl!}api/logs/stream?id=${encodeURIComponent(jobId)}`);
    expect(res.status).toBe(200);
    const text = await res.text(); // the stream ends after the done event
    const events = [...text.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map((m) => ({ event: m[1], data: JSON.parse(m[2]!) as LogStreamEvent }));
    expect(events.map((e) => e.event)).not.toContain('failure');
    expect(events.flatMap((e) => e.data.entries.map((x) => x.data))).toEqual([...LINES, 'pruned to stderr']);
    expect(events.at(-1)!.data).toMatchObject({ done: true, jobState: 'SUCCEEDED' });
  }, 60_000);

  it('the job page says the job was pruned and shows its logs from the archive', async () => {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    await page.goto(`${controller.dashboardUrl!}#/job?id=${encodeURIComponent(jobId)}`);
    const notice = page.locator('[data-pruned-job]');
    await notice.waitFor({ timeout: 20_000 });
    await expect(notice.textContent()).resolves.toMatch(/pruned/i);
    await expect(page.locator('.state.big').textContent()).resolves.toBe('SUCCEEDED');
    const lines = page.locator('.log-lines .line');
    await lines.filter({ hasText: 'pruned line 2' }).waitFor({ timeout: 20_000 });
    await expect(lines.count()).resolves.toBe(4);
    await page.locator('[data-log-status^="ended"]').waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-pruned-job.png') });
    // A job that never existed: a clear "not found", no log view.
    await page.goto(`${controller.dashboardUrl!}#/job?id=${encodeURIComponent('/alice/never-ran')}`);
    await page.locator('[data-job-not-found]').waitFor({ timeout: 20_000 });
    await expect(page.locator('.log-lines').count()).resolves.toBe(0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-job-not-found.png') });
  }, 90_000);
});
