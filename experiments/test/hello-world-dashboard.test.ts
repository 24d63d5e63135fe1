import { execFileSync, execSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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

describe("the dashboard's experiments view of ArtifactSteps", () => {
  let prefix = '';
  let assets = '';
  let drifted = '';
  const node = (args: string[]) => spawnSync(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', ...args], { cwd: EXPERIMENTS_DIR, encoding: 'utf8' });
  beforeAll(() => {
    prefix = mkdtempSync(join(tmpdir(), 'hello-world-artifacts-dashboard-'));
    assets = mkdtempSync(join(tmpdir(), 'iris-dashboard-assets-'));
    execFileSync(process.execPath, [join(REPO_ROOT, 'packages', 'iris', 'ui', 'build.mjs'), assets]);
    const first = node(['hello_world_artifacts.js', '--version', '2026.11.25', '--prefix', prefix, '--run']);
    expect(first.status, first.stderr).toBe(0);
    // The same graph with a changed literal (n) and no version bump: the run serves the cached data with a
    // drift warning and lists the new fingerprint in its experiment file, while the record keeps the old one.
    const before = new Set(readdirSync(join(prefix, 'experiments')));
    const dir = mkdtempSync(join(EXPERIMENTS_DIR, '.tmp-drift-'));
    try {
      writeFileSync(join(dir, 'hello_world_artifacts.js'), readFileSync(join(EXPERIMENTS_DIR, 'hello_world_artifacts.js'), 'utf8').replace('n: 100', 'n: 200'));
      const second = node([join(dir, 'hello_world_artifacts.js'), '--version', '2026.11.25', '--prefix', prefix, '--run']);
      expect(second.status, second.stderr).toBe(0);
      expect(second.stderr).toContain('recipe drift');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    drifted = readdirSync(join(prefix, 'experiments')).find((f) => !before.has(f))!;
  });
  afterAll(() => {
    rmSync(prefix, { recursive: true, force: true });
    rmSync(assets, { recursive: true, force: true });
  });

  it('draws name@version nodes with their dependency and marks the drifted one', async () => {
    await using controller = await startController({ dashboardAssetsDir: assets, experimentPrefixes: [prefix] });
    const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
      await page.goto(`${controller.dashboardUrl}#/experiment?prefix=${encodeURIComponent(prefix)}&file=${drifted}`);
      const data = page.locator('svg.dag g[data-artifact="hello_world/data@2026.11.25"]');
      const stats = page.locator('svg.dag g[data-artifact="hello_world/stats@2026.11.25"]');
      await data.waitFor();
      await expect(page.locator('svg.dag g.node').count()).resolves.toBe(2);
      await expect(page.locator('svg.dag path.edge').count()).resolves.toBe(1);
      await expect(data.getAttribute('data-drift')).resolves.toBe('true');
      await expect(stats.getAttribute('data-drift')).resolves.toBe('false');
      await expect(data.locator('.node-status').textContent()).resolves.toContain('drift');
      await expect(page.locator('table.steps').textContent()).resolves.toContain('hello_world/stats@2026.11.25');
      // The stats node's detail: its artifact record, read from .artifact.json.
      await stats.click();
      await expect(page.locator('.artifact-record').textContent()).resolves.toContain('hello_world_artifacts.HelloStats');
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-artifacts.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
