import { execFileSync, execSync } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startController } from '@marin/iris';
import { chromium } from 'playwright-core';
import { expect } from 'vitest';
import { REPO_ROOT } from './run-process.js';

/** What to look for on the experiment page. */
export interface DashboardExpectations {
  /** The train step's name (`checkpoints/quickstart`). */
  trainStep: string;
  /** Validation-set tags whose loss must be drawn (`offline/gazetteer`); any eval series at all when empty. */
  evalSets: readonly string[];
  /** An eval step whose results table must show `tiny_mc`, if any. */
  evalStep?: string;
}

/**
 * The dashboard's experiment page on a run just made, in Debian's chromium: the train step's loss (train and
 * validation), learning rate and tokens/s charts from Levanter's records (one point per step that
 * `metrics/metrics.jsonl` gives a train loss for), and the eval step's results table.
 */
export async function expectDashboardCharts(prefix: string, work: string, want: DashboardExpectations): Promise<void> {
  const assets = join(work, 'dashboard-assets');
  execFileSync(process.execPath, [join(REPO_ROOT, 'packages', 'iris', 'ui', 'build.mjs'), assets]);
  await using controller = await startController({ dashboardAssetsDir: assets, experimentPrefixes: [prefix] });
  let executable: string;
  try {
    executable = execSync('which chromium', { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('chromium is not installed; run `apt-get update && apt-get install -y chromium`');
  }
  const browser = await chromium.launch({ executablePath: executable, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const [file] = await readdir(join(prefix, 'experiments'));
    await page.goto(`${controller.dashboardUrl}#/experiment?prefix=${encodeURIComponent(prefix)}&file=${file}`);
    await page.locator(`svg.dag g[data-step="${want.trainStep}"]`).click();
    const loss = page.locator('figure.chart[data-chart="Loss"]');
    const base = want.trainStep.slice(want.trainStep.lastIndexOf('/') + 1);
    const [trainDir] = (await readdir(join(prefix, want.trainStep.slice(0, want.trainStep.lastIndexOf('/'))))).filter((d) => d.startsWith(`${base}-`));
    const records = (await readFile(join(prefix, want.trainStep.slice(0, want.trainStep.lastIndexOf('/')), trainDir!, 'metrics', 'metrics.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: number; metrics: Record<string, number> });
    const trainSteps = new Set(records.filter((r) => typeof r.metrics['train/loss'] === 'number').map((r) => r.step));
    expect(trainSteps.size).toBeGreaterThan(10);
    await expect(loss.locator('path.series[data-series="train"]').getAttribute('data-points')).resolves.toBe(String(trainSteps.size));
    if (want.evalSets.length === 0) await expect(loss.locator('path.series[data-series^="eval"]').count()).resolves.toBeGreaterThan(0);
    for (const tag of want.evalSets) await expect(loss.locator(`path.series[data-series="eval ${tag}"]`).count()).resolves.toBe(1);
    for (const chart of ['Learning rate', 'Tokens/s']) await expect(page.locator(`figure.chart[data-chart="${chart}"] path.series`).count()).resolves.toBe(1);
    if (want.evalStep !== undefined) {
      await page.locator(`svg.dag g[data-step="${want.evalStep}"]`).click();
      await page.locator('table.eval-results tbody tr', { hasText: 'tiny_mc' }).first().waitFor();
      await expect(page.locator('table.eval-results tbody tr', { hasText: 'validation' }).count()).resolves.toBeGreaterThan(0);
    }
  } finally {
    await browser.close();
  }
}
