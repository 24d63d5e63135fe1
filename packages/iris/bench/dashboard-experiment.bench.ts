/**
 * Dashboard experiment page with a 10,000-step training run: first contentful paint and the time the
 * charts are on screen, in headless Debian Chromium against a real controller reading the run's files.
 * Prints figures; asserts nothing.
 *
 * Run alone: `node --conditions=@marin/source --import tsx bench/dashboard-experiment.bench.ts`
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startController } from '../src/cluster/start-controller.js';
import { buildDashboardAssets, launchChromium } from '../test/helpers/browser.js';

const STEPS = 10_000;
const LOADS = 7;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/**
 * A train step's output as Levanter's json_logger leaves it, one record per metric group as Levanter logs
 * them (throughput, train loss with the learning rate, an evaluation every 100 steps on two validation sets).
 */
function writeTrainRun(prefix: string): { file: string; bytes: number } {
  const out = join(prefix, 'checkpoints', 'big-abcdef');
  mkdirSync(join(out, 'logs'), { recursive: true });
  writeFileSync(join(out, '.executor_info'), JSON.stringify({ name: 'checkpoints/big', version: {} }));
  writeFileSync(join(out, '.executor_status'), 'SUCCESS');
  const lines: string[] = [];
  const rec = (step: number, metrics: Record<string, unknown>) =>
    lines.push(`2026-11-26T02:40:26 - 0 - levanter.json_logger - json_logger.py:80 - INFO :: ${JSON.stringify({ tracker: 'json_logger', event: 'log', step, metrics })}`);
  for (let step = 0; step < STEPS; step++) {
    const loss = 2 + 8 * Math.exp(-step / 1500) + 0.05 * Math.sin(step);
    rec(step, { 'throughput/hook_time': 0.0001, 'throughput/loading_time': 0.002 });
    rec(step, {
      'train/loss': loss,
      'optim/learning_rate': 3e-3 * Math.min(1, step / 500) * (1 - step / STEPS),
      'throughput/tokens_per_second': 50_000 + 2000 * Math.sin(step / 50),
      'throughput/examples_per_second': 100,
      'throughput/duration': 0.1,
      'throughput/total_tokens': step * 4096,
      global_step: step,
      run_progress: step / STEPS,
    });
    if (step % 100 === 99) for (const tag of ['web', 'code']) rec(step, { [`eval/${tag}/loss`]: loss + 0.3, [`eval/${tag}/bpb`]: (loss + 0.3) / 3, 'eval/loss': loss + 0.3 });
  }
  const file = join(out, 'logs', 'big-abcdef.log.log');
  writeFileSync(file, `${lines.join('\n')}\n`);
  mkdirSync(join(prefix, 'experiments'), { recursive: true });
  writeFileSync(join(prefix, 'experiments', 'big-123456.json'), JSON.stringify({ steps: [{ name: 'checkpoints/big', output_path: out, dependencies: [] }] }));
  return { file, bytes: statSync(file).size };
}

export interface DashboardExperimentBench {
  steps: number;
  fileBytes: number;
  fcpMs: number[];
  chartsMs: number[];
  /** First contentful paint of the jobs page (no experiment data) on the same controller and browser: the baseline. */
  jobsFcpMs: number[];
}

export async function runDashboardExperimentBench(): Promise<DashboardExperimentBench> {
  const assets = buildDashboardAssets();
  const prefix = mkdtempSync(join(tmpdir(), 'iris-bench-experiment-'));
  const { bytes } = writeTrainRun(prefix);
  const controller = await startController({ dashboardAssetsDir: assets, experimentPrefixes: [prefix] });
  const browser = await launchChromium();
  const fcpMs: number[] = [];
  const chartsMs: number[] = [];
  const jobsFcpMs: number[] = [];
  try {
    const url = `${controller.dashboardUrl}#/experiment?prefix=${encodeURIComponent(prefix)}&file=big-123456.json&step=0`;
    for (let i = 0; i < LOADS + 1; i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await page.goto(url);
      await page.locator('figure.chart[data-chart="Loss"] path.series').first().waitFor({ timeout: 60_000 });
      const t = await page.evaluate(() => ({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
        charts: performance.getEntriesByName('iris-charts-rendered')[0]?.startTime ?? -1,
      }));
      await page.close();
      // The first load warms the controller's code paths and the browser's cache of the page's assets.
      if (i === 0) continue;
      fcpMs.push(t.fcp);
      chartsMs.push(t.charts);
      const jobs = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await jobs.goto(`${controller.dashboardUrl}#/jobs`);
      await jobs.locator('table.jobs').waitFor({ timeout: 60_000 });
      jobsFcpMs.push(await jobs.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1));
      await jobs.close();
    }
  } finally {
    await browser.close();
    await controller.close();
    rmSync(prefix, { recursive: true, force: true });
    rmSync(assets, { recursive: true, force: true });
  }
  return { steps: STEPS, fileBytes: bytes, fcpMs, chartsMs, jobsFcpMs };
}

export function formatDashboardExperimentBench(r: DashboardExperimentBench): string {
  const f = (xs: number[]) => `median ${Math.round(median(xs))} ms, max ${Math.round(Math.max(...xs))} ms`;
  return [
    `experiment page, ${r.steps.toLocaleString('en-US')}-step train run (${(r.fileBytes / 1e6).toFixed(1)} MB of json_logger records), ${r.fcpMs.length} loads`,
    `  first contentful paint: ${f(r.fcpMs)}`,
    `  charts rendered:        ${f(r.chartsMs)}`,
    `  baseline, jobs page first contentful paint: ${f(r.jobsFcpMs)}`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatDashboardExperimentBench(await runDashboardExperimentBench()));
}
