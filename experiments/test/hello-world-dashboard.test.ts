import { execFileSync, execSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startController } from '@marin/iris';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const EXPERIMENTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const REPO_ROOT = join(EXPERIMENTS_DIR, '..');
const SCREENSHOT_DIR = process.env['IRIS_SCREENSHOT_DIR'] || join(EXPERIMENTS_DIR, '.screenshots');

function chromiumPath(): string {
  try {
    return execSync('which chromium', { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('chromium is not installed; run `apt-get update && apt-get install -y chromium`');
  }
}

describe("the dashboard's experiments view", () => {
  let prefix = '';
  let assets = '';
  beforeAll(() => {
    prefix = mkdtempSync(join(tmpdir(), 'hello-world-dashboard-'));
    assets = mkdtempSync(join(tmpdir(), 'iris-dashboard-assets-'));
    execFileSync(process.execPath, [join(REPO_ROOT, 'packages', 'iris', 'ui', 'build.mjs'), assets]);
    const r = spawnSync(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', 'hello_world.js', '--prefix', prefix], { cwd: EXPERIMENTS_DIR, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
  afterAll(() => {
    rmSync(prefix, { recursive: true, force: true });
    rmSync(assets, { recursive: true, force: true });
  });

  it("draws hello_world's two steps with SUCCESS", async () => {
    await using controller = await startController({ dashboardAssetsDir: assets, experimentPrefixes: [prefix] });
    const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 640 } });
      await page.goto(`${controller.dashboardUrl}#/experiments?prefix=${encodeURIComponent(prefix)}`);
      const [file] = readdirSync(join(prefix, 'experiments'));
      await page.locator('a', { hasText: file! }).click();
      for (const step of ['hello_world/data', 'hello_world/stats']) {
        await page.locator(`svg.dag g[data-step="${step}"][data-status="SUCCESS"]`).waitFor();
      }
      await expect(page.locator('svg.dag g.node').count()).resolves.toBe(2);
      await expect(page.locator('svg.dag path.edge').count()).resolves.toBe(1);
      await expect(page.locator('table.steps').textContent()).resolves.toContain(join(prefix, 'hello_world', 'stats-b5daf3'));
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-experiment.png') });
    } finally {
      await browser.close();
    }
  });
});
