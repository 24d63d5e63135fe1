import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDashboardCharts } from './helpers/dashboard-charts.js';
import { runNode } from './helpers/run-process.js';

describe('experiments/quickstart_mixture.js', () => {
  let work = '';
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'quickstart-mixture-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('trains on two components mixed 3:1 with the offline validation sets; Levanter reports each set\'s loss and bpb; a live status line; the dashboard draws the curves', async () => {
    const prefix = join(work, 'prefix');
    const run = await runNode(['quickstart_mixture.js', '--status-interval', '1'], { env: { MARIN_PREFIX: prefix } });
    expect(run.code, run.stderr.slice(-4000)).toBe(0);
    expect(run.stderr).toContain('8 steps: 8 ran, 0 skipped');

    const runs = await readdir(join(prefix, 'checkpoints'));
    expect(runs).toHaveLength(1);
    const out = join(prefix, 'checkpoints', runs[0] as string);
    const yaml = await readFile(join(out, 'levanter_config.yaml'), 'utf8');
    const data = (JSON.parse(yaml.split('\n').filter((l) => !l.startsWith('#')).join('\n')) as { data: Record<string, unknown> }).data;
    expect(data['train_weights']).toEqual({ north: 0.75, south: 0.25, 'offline/gazetteer': 0, 'offline/chronicle': 0 });

    const summary = JSON.parse(await readFile(join(out, 'train_summary.json'), 'utf8')) as { final_step: number; eval: Record<string, number> };
    expect(summary.final_step).toBe(19);
    for (const tag of ['offline/gazetteer', 'offline/chronicle', 'offline']) {
      expect(summary.eval[`eval/${tag}/loss`]).toBeGreaterThan(0);
      expect(summary.eval[`eval/${tag}/bpb`]).toBeGreaterThan(0);
    }

    // A live status line while training (off a terminal: `⋯ <step> step N/20 …`, here at most once a second).
    expect(run.stderr).toMatch(/⋯ \S*quickstart-mixture\S* step \d+\/20/);
    await expectDashboardCharts(prefix, work, { trainStep: 'checkpoints/quickstart-mixture', evalSets: ['offline/gazetteer', 'offline/chronicle'] });

    const again = await runNode(['quickstart_mixture.js'], { env: { MARIN_PREFIX: prefix } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('8 steps: 0 ran, 8 skipped (already succeeded)');
  }, 900_000);
});
