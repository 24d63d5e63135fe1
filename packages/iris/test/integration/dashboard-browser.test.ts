import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AutoscalerResponse } from '../../src/dashboard/api-types.js';
import { parseClusterConfig } from '../../src/autoscaler/cluster-config.js';
import { startCluster } from '../../src/cluster/start-cluster.js';
import { createIrisClient } from '../../src/client/iris-client.js';
import type { IrisClient } from '../../src/client/iris-client.js';
import { startController } from '../../src/cluster/start-controller.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';
import { LaunchJobRequest } from '../../src/gen/iris/v1/controller.js';
import { PriorityBand } from '../../src/gen/iris/v1/types.js';
import { buildDashboardAssets, launchChromium, SCREENSHOT_DIR } from '../helpers/browser.js';
import { startWorkerProcess } from '../helpers/worker-process.js';
import type { WorkerProcess } from '../helpers/worker-process.js';

// One browser for the file; a real controller with a real worker process; the page built from source.
describe('dashboard in headless Chromium', () => {
  let assets = '';
  let stateDir = '';
  let browser: Browser;
  let controller: ControllerHandle;
  let worker: WorkerProcess;
  let client: IrisClient;
  let page: Page;

  beforeAll(async () => {
    assets = buildDashboardAssets();
    stateDir = mkdtempSync(join(tmpdir(), 'iris-dashboard-'));
    controller = await startController({ stateDir: join(stateDir, 'controller'), reconcileIntervalMs: 100, dashboardAssetsDir: assets });
    worker = await startWorkerProcess({
      controllerAddress: controller.address,
      workerId: 'dash-worker-0',
      cacheDir: join(stateDir, 'worker'),
      cpuMillicores: 4000,
      memoryBytes: 4 * 1024 ** 3,
      attributes: { pool: 'dashboard' },
      registerRetryInitialMs: 100,
      logFlushIntervalMs: 100,
    });
    client = createIrisClient({ address: controller.address });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  });

  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await worker?.stop();
    await controller?.close();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(assets, { recursive: true, force: true });
  });

  it('the jobs page lists a submitted job', async () => {
    const jobId = await client.launchJob({ name: 'dash-hello', command: ['sh', '-c', 'echo hello from the dashboard'], user: 'alice' });
    await client.waitForJob(jobId);
    await page.goto(`${controller.dashboardUrl}#/jobs`);
    const row = page.locator('table.jobs tbody tr', { hasText: jobId });
    await row.waitFor();
    await expect(row.locator('.state').textContent()).resolves.toBe('SUCCEEDED');
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-jobs.png') });
  });

  it('the job page shows log lines as the task prints them', async () => {
    // Each line is printed only after the page showed the one before it (the test touches the gate file).
    const gate = join(stateDir, 'gate');
    const script = `for i in 1 2 3; do echo "tick $i"; while [ ! -e "${gate}-$i" ]; do sleep 0.05; done; done; echo done`;
    const jobId = await client.launchJob({ name: 'dash-logs', command: ['sh', '-c', script], user: 'alice' });
    await page.goto(`${controller.dashboardUrl}#/job?id=${encodeURIComponent(jobId)}`);
    const lines = page.locator('.log-lines .line');
    for (let i = 1; i <= 3; i++) {
      await lines.filter({ hasText: `tick ${i}` }).waitFor({ timeout: 20_000 });
      // The task is still running: the line arrived by server push, not after the job ended.
      expect((await client.getJob(jobId)).state).toBe('RUNNING');
      if (i === 2) await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-job.png') });
      rmSync(`${gate}-${i}`, { force: true });
      await import('node:fs/promises').then((fs) => fs.writeFile(`${gate}-${i}`, ''));
    }
    await lines.filter({ hasText: 'done' }).waitFor();
    await page.locator('[data-log-status^="ended"]').waitFor();
    expect((await client.waitForJob(jobId)).state).toBe('SUCCEEDED');
  });

  it('colours log lines by the level they state, not every stderr line red', async () => {
    const script = [
      `echo 'W1126 02:39:22.123456 1 xla_bridge.py:900] No GPU/TPU found' >&2`,
      `echo 'I20261126 02:39:22 1 levanter.trainer Training' >&2`,
      `echo 'ERROR:root:step failed' >&2`,
      `echo 'plain progress on stderr' >&2`,
      `echo 'plain stdout'`,
    ].join('; ');
    const jobId = await client.launchJob({ name: 'dash-levels', command: ['sh', '-c', script], user: 'alice' });
    await client.waitForJob(jobId);
    await page.goto(`${controller.dashboardUrl}#/job?id=${encodeURIComponent(jobId)}`);
    await page.locator('.log-lines .line', { hasText: 'plain stdout' }).waitFor({ timeout: 20_000 });
    // The line's classes and computed colour, read in the page (the test's own types have no DOM).
    const colour = (text: string) =>
      page.locator('.log-lines .line', { hasText: text }).evaluate((el) => {
        const view = globalThis as unknown as { getComputedStyle(e: unknown): { color: string } };
        return { cls: el.className, color: view.getComputedStyle(el).color };
      });
    const warning = await colour('No GPU/TPU found');
    const info = await colour('levanter.trainer Training');
    const error = await colour('step failed');
    const plainErr = await colour('plain progress on stderr');
    const plainOut = await colour('plain stdout');
    expect(warning.cls).toContain('lvl-warning');
    expect(info.cls).toContain('lvl-info');
    expect(error.cls).toContain('lvl-error');
    expect(plainErr.cls).toContain('src-stderr');
    expect(plainErr.cls).toContain('lvl-none');
    // Only the error line is red; an info or unlabelled stderr line looks like stdout.
    expect(new Set([warning.color, error.color, plainOut.color]).size).toBe(3);
    expect(info.color).toBe(plainOut.color);
    expect(plainErr.color).toBe(plainOut.color);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-log-levels.png') });
  });

  it('stopping a job from the page (with confirmation) ends it', async () => {
    const jobId = await client.launchJob({ name: 'dash-stop', command: ['sleep', '600'], user: 'bob' });
    await page.goto(`${controller.dashboardUrl}#/job?id=${encodeURIComponent(jobId)}`);
    await page.locator('.state.big', { hasText: 'RUNNING' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Stop job' }).click();
    const confirm = page.getByRole('alertdialog');
    await expect(confirm.textContent()).resolves.toContain(`Stop ${jobId}?`);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-stop.png') });
    await confirm.getByRole('button', { name: 'Stop', exact: true }).click();
    expect((await client.waitForJob(jobId, { timeoutMs: 20_000 })).state).toBe('KILLED');
    await page.locator('.state.big', { hasText: 'KILLED' }).waitFor();
    await expect(page.getByRole('button', { name: 'Stop job' }).count()).resolves.toBe(0);
  });

  it('the workers and users pages show the worker and the users', async () => {
    const jobId = await client.launchJob({ name: 'dash-busy', command: ['sleep', '600'], user: 'carol' });
    await client.setUserBudget({ user: 'carol', budgetLimit: 50, maxBand: 'INTERACTIVE' });
    await page.goto(`${controller.dashboardUrl}#/workers`);
    const row = page.locator('tr', { hasText: 'dash-worker-0' });
    await row.locator('a', { hasText: `${jobId}/0` }).waitFor({ timeout: 20_000 });
    await expect(row.textContent()).resolves.toContain('pool=dashboard');
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-workers.png') });
    await page.goto(`${controller.dashboardUrl}#/users`);
    await page.locator('tr', { hasText: 'carol' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-users.png') });
    await client.terminateJob(jobId);
  });

  it('without an autoscaler the slices page explains why it is empty and the nav has no link to it', async () => {
    await page.goto(`${controller.dashboardUrl}#/slices`);
    await page.locator('.empty-state', { hasText: 'runs no autoscaler' }).waitFor();
    await page.locator('header .summary .muted').waitFor();
    await expect(page.locator('nav a', { hasText: 'Slices' }).count()).resolves.toBe(0);
  });

  it('the slices page shows a scale group and its slice reaching READY', async () => {
    const dir = join(stateDir, 'cluster');
    const config = parseClusterConfig({
      controller: { address: '127.0.0.1:0', state_dir: dir, reconcile_interval_ms: 100, checkpoint_interval_ms: 0 },
      platforms: { here: { kind: 'local', max_workers: 2 } },
      scale_groups: [{ name: 'cpu-small', slice: { kind: 'cpu' }, resources: { cpu: 1, memory_bytes: 1 << 30 }, min_slices: 1, max_slices: 2, priority: 10 }],
      autoscaler: { evaluation_interval_ms: 100, scale_up_delay_ms: 200, startup_grace_ms: 120_000 },
    });
    // The page built from source, as for the controller above (a variable, since startCluster's
    // overrides name only the options a cluster config leaves open).
    const overrides = { dashboardAssetsDir: assets, warn: () => undefined };
    await using cluster = await startCluster(config, overrides);
    const base = cluster.dashboardUrl!;
    await page.goto(`${base}#/jobs`);
    await page.locator('nav a', { hasText: 'Slices' }).click();
    const group = page.locator('table.groups tr[data-group="cpu-small"]');
    await group.waitFor({ timeout: 20_000 });
    await expect(group.textContent()).resolves.toContain('here');
    await expect(group.textContent()).resolves.toContain('1 / 2 / 0');
    const ready = page.locator('table.slices tr[data-slice] .state', { hasText: 'READY' });
    await ready.waitFor({ timeout: 90_000 });
    // The page polls: it reached READY without a reload, and the template comes from the slice's worker.
    await group.locator('td', { hasText: /^cpu$/ }).waitFor();
    const api = (await (await fetch(`${base}api/autoscaler`)).json()) as AutoscalerResponse;
    expect(api.enabled).toBe(true);
    expect(api.groups).toMatchObject([{ name: 'cpu-small', platform: 'here', minSlices: 1, currentSlices: 1, template: 'cpu' }]);
    expect(api.slices).toMatchObject([{ group: 'cpu-small', state: 'READY', workersRegistered: 1, vmCount: 1 }]);
    expect(api.slices[0]!.workers).toHaveLength(1);
    expect(api.slices[0]!.idleSinceMs).toBeGreaterThan(0);
    await page.locator('header .summary', { hasText: '1 workers' }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-slices.png') });
  }, 150_000);

  it('with 10,000 jobs the jobs page paints its first page in under a second', async () => {
    const state = controller.state;
    const t0 = performance.now();
    // Seeded through the controller's own submission and stop paths in one transaction (10,000 RPCs
    // would take minutes): a history of finished jobs with 100 still pending, as a busy cluster has.
    state.store.transaction(() => {
      for (let i = 0; i < 10_000; i++) {
        const id = state.launchJob(
          LaunchJobRequest.fromPartial({
            name: `/user${i % 20}/bulk-${String(i).padStart(5, '0')}`,
            user: `user${i % 20}`,
            entrypoint: { run: { argv: ['true'] } },
            resources: { cpuMillicores: 1_000_000, memoryBytes: 1024 },
            replicas: 1,
            priorityBand: [PriorityBand.PRIORITY_BAND_PRODUCTION, PriorityBand.PRIORITY_BAND_INTERACTIVE, PriorityBand.PRIORITY_BAND_BATCH][i % 3]!,
          }),
        );
        if (i % 100 !== 0) state.terminateJob(id);
      }
    });
    const seedMs = performance.now() - t0;
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    await fresh.goto(`${controller.dashboardUrl}#/jobs`);
    await fresh.locator('table.jobs tbody tr').first().waitFor();
    const paint = await fresh.evaluate(() => {
      const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1;
      const rendered = performance.getEntriesByName('iris-jobs-rendered')[0]?.startTime ?? -1;
      return { fcp, rendered };
    });
    console.log(`10,000 jobs seeded in ${Math.round(seedMs)} ms; first contentful paint ${Math.round(paint.fcp)} ms; jobs table rendered ${Math.round(paint.rendered)} ms`);
    expect(paint.rendered).toBeGreaterThan(0);
    expect(paint.rendered).toBeLessThan(1000);
    await expect(fresh.locator('.filters').textContent()).resolves.toContain('10,');
    await expect(fresh.locator('table.jobs tbody tr').count()).resolves.toBe(50);
    // Paging and filters run in SQL too.
    await fresh.goto(`${controller.dashboardUrl}#/jobs?band=BATCH&user=user3&sort=id&dir=asc&page=2`);
    await fresh.locator('.pager', { hasText: 'page 3 of 4' }).waitFor();
    const ids = await fresh.locator('table.jobs tbody tr td:first-child').allTextContents();
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => id.startsWith('/user3/bulk-'))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    await fresh.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-jobs-10k.png') });
    await fresh.close();
  });
});
