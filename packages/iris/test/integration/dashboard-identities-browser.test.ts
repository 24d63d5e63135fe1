import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import { startController } from '../../src/cluster/start-controller.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';
import { buildDashboardAssets, launchChromium, SCREENSHOT_DIR } from '../helpers/browser.js';

// No worker: the jobs stay PENDING, which is all the Stop button needs.
describe('dashboard login with an API key in headless Chromium', () => {
  let assets = '';
  let stateDir = '';
  let browser: Browser;
  let controller: ControllerHandle;
  let aliceKey = '';
  let aliceJob = '';
  let bobJob = '';

  beforeAll(async () => {
    assets = buildDashboardAssets();
    stateDir = mkdtempSync(join(tmpdir(), 'iris-dashboard-login-'));
    controller = await startController({ stateDir, dashboardAssetsDir: assets, authMode: 'api-keys', authToken: 'browser-worker-secret', bootstrapAdmin: 'root', warn: () => {} });
    await using admin = createIrisClient({ address: controller.address, token: readFileSync(controller.bootstrapKeyFile!, 'utf8').trim() });
    aliceKey = (await admin.createApiKey({ user: 'alice' })).key;
    await using alice = createIrisClient({ address: controller.address, token: aliceKey });
    await using bob = createIrisClient({ address: controller.address, token: (await admin.createApiKey({ user: 'bob' })).key });
    aliceJob = await alice.launchJob({ name: 'mine', command: ['true'] });
    bobJob = await bob.launchJob({ name: 'theirs', command: ['true'] });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await controller?.close();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(assets, { recursive: true, force: true });
  });

  it('logs in with the key, shows who is logged in, and offers Stop only on the user\u2019s own jobs', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 600 } });
    await page.goto(controller.dashboardUrl!);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name="key"]', aliceKey);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-login.png') });
    await Promise.all([page.waitForURL((u) => u.pathname === '/'), page.click('button[type="submit"]')]);
    await page.locator('header', { hasText: 'alice (user)' }).waitFor();
    await page.goto(`${controller.dashboardUrl}#/job?id=${encodeURIComponent(aliceJob)}`);
    await page.locator('h1', { hasText: aliceJob }).waitFor();
    await page.getByRole('button', { name: 'Stop job' }).waitFor();
    await page.goto(`${controller.dashboardUrl}#/job?id=${encodeURIComponent(bobJob)}`);
    await page.locator('h1', { hasText: bobJob }).waitFor();
    await page.locator('dd', { hasText: 'bob' }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Stop job' }).count()).toBe(0);
    await Promise.all([page.waitForURL((u) => u.pathname === '/login'), page.getByRole('button', { name: 'Log out' }).click()]);
    const after = await page.request.get(`${controller.dashboardUrl}api/jobs`);
    expect(after.status()).toBe(401);
    await page.close();
  });
});
