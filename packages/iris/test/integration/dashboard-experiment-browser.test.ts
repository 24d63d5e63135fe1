import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController } from '../../src/cluster/start-controller.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';
import { buildDashboardAssets, launchChromium, SCREENSHOT_DIR } from '../helpers/browser.js';

/**
 * Files of a real CPU quickstart run (experiments/quickstart.js: Levanter trained 20 steps and was
 * evaluated), then a second train run of the same step with another learning rate: the experiment files,
 * each step's bookkeeping, Levanter's log with its json_logger records and the eval step's results.json.
 * Paths inside are written as `@PREFIX@`.
 */
const FIXTURE = fileURLToPath(new URL('../fixtures/quickstart-prefix', import.meta.url));
const TRAIN = 'checkpoints/quickstart-94c6d3';

function materialize(into: string): void {
  cpSync(FIXTURE, into, { recursive: true });
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json') || name === '.executor_info') writeFileSync(path, readFileSync(path, 'utf8').replaceAll('@PREFIX@', into));
    }
  };
  walk(into);
}

describe('the experiment page draws what a real quickstart run wrote', () => {
  let assets = '';
  let prefix = '';
  let browser: Browser;
  let controller: ControllerHandle;
  let page: Page;
  let experimentFile = '';

  beforeAll(async () => {
    assets = buildDashboardAssets();
    prefix = mkdtempSync(join(tmpdir(), 'iris-dashboard-quickstart-'));
    materialize(prefix);
    experimentFile = readdirSync(join(prefix, 'experiments')).find((f) => JSON.parse(readFileSync(join(prefix, 'experiments', f), 'utf8')).steps.length === 6)!;
    controller = await startController({ dashboardAssetsDir: assets, experimentPrefixes: [prefix] });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  });

  afterAll(async () => {
    await browser?.close();
    await controller?.close();
    rmSync(prefix, { recursive: true, force: true });
    rmSync(assets, { recursive: true, force: true });
  });

  const stepIndex = (name: string): number => {
    const doc = JSON.parse(readFileSync(join(prefix, 'experiments', experimentFile), 'utf8')) as { steps: { name: string }[] };
    return doc.steps.findIndex((s) => s.name === name);
  };

  it("a train step shows loss (train and validation), learning rate and tokens/s charts from Levanter's records", async () => {
    await page.goto(`${controller.dashboardUrl}#/experiments?prefix=${encodeURIComponent(prefix)}`);
    await page.locator('a', { hasText: experimentFile }).click();
    await page.locator(`svg.dag g[data-step="checkpoints/quickstart"]`).click();
    const loss = page.locator('figure.chart[data-chart="Loss"]');
    await loss.waitFor();
    // Levanter logged train/loss for steps 2-19 (step 19 twice: one point) and evaluated at steps 10 and 19.
    await expect(loss.locator('path.series[data-series="train"]').getAttribute('data-points')).resolves.toBe('18');
    await expect(loss.locator('path.series[data-series="eval quickstart"]').getAttribute('data-points')).resolves.toBe('2');
    // eval/loss, Levanter's average over the validation sets, repeats the only one and is not drawn twice.
    await expect(loss.locator('path.series').count()).resolves.toBe(2);
    const d = await loss.locator('path.series[data-series="train"]').getAttribute('d');
    expect(d?.match(/[ML]/g)).toHaveLength(18);
    await expect(loss.locator('.axis-label').allTextContents()).resolves.toEqual(['step', 'loss']);
    expect((await loss.locator('.tick.y').allTextContents()).length).toBeGreaterThan(2);
    for (const [chart, series] of [['Learning rate', 'learning rate'], ['Tokens/s', 'tokens/s']] as const) {
      await expect(page.locator(`figure.chart[data-chart="${chart}"] path.series[data-series="${series}"]`).getAttribute('data-points')).resolves.toBe('18');
    }
    await expect(page.locator('.step-output').first().textContent()).resolves.toContain(`records in logs/quickstart-94c6d3.log.log`);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-train-metrics.png'), fullPage: true });
  });

  it('an eval step shows its results table (task, metric, value, stderr)', async () => {
    await page.goto(`${controller.dashboardUrl}#/experiment?prefix=${encodeURIComponent(prefix)}&file=${experimentFile}&step=${stepIndex('evaluation/levanter/quickstart')}`);
    const rows = page.locator('table.eval-results tbody tr');
    await rows.first().waitFor();
    const text = await rows.allTextContents();
    expect(text.some((r) => r.startsWith('tiny_mcacc') && r.includes('±'))).toBe(true);
    expect(text.some((r) => r.startsWith('validationbits_per_byte'))).toBe(true);
    expect(text.some((r) => r.startsWith('validation/quickstartloss'))).toBe(true);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-eval-results.png'), fullPage: true });
  });

  it('compares two runs of the same train step side by side', async () => {
    await page.goto(`${controller.dashboardUrl}#/experiment?prefix=${encodeURIComponent(prefix)}&file=${experimentFile}&step=${stepIndex('checkpoints/quickstart')}`);
    const select = page.locator('select.compare');
    await select.locator('option').nth(1).waitFor({ state: 'attached' });
    await expect(select.locator('option').count()).resolves.toBe(2);
    const other = await select.locator('option').nth(1).getAttribute('value');
    expect(other).not.toBe(join(prefix, TRAIN));
    await select.selectOption(other!);
    await page.locator('.runs.two .step-output').nth(1).locator('figure.chart[data-chart="Loss"] path.series').first().waitFor();
    const outputs = await page.locator('.runs.two .step-output').evaluateAll((els) => els.map((e) => e.getAttribute('data-output')));
    expect(outputs).toEqual([join(prefix, TRAIN), other]);
    const lr = await page.locator('.runs.two figure.chart[data-chart="Learning rate"] .tick.y').allTextContents();
    expect(lr.length).toBeGreaterThan(4);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-compare-runs.png'), fullPage: true });
  });
});
