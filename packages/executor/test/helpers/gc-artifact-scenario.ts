import { setTimeout as sleep } from 'node:timers/promises';
import { ArtifactStep, runArtifacts } from '@marin/executor';
import { writeText } from '@marin/rigging';
import { expect } from 'vitest';
import { captureLogger } from './capture-logger.js';
import { runMarin } from './marin-cli.js';

function graph(version: string): ArtifactStep {
  const data = new ArtifactStep({
    name: 'gcart/data',
    version,
    buildConfig: (ctx) => ({ out: ctx.outputPath }),
    run: async (c: { out: string }) => writeText(`${c.out}/data.bin`, 'd'.repeat(1024)),
  });
  return new ArtifactStep({
    name: 'gcart/model',
    version,
    deps: [data],
    buildConfig: (ctx) => ({ data: ctx.artifactPath(data), out: ctx.outputPath }),
    run: async (c: { out: string }) => writeText(`${c.out}/model.bin`, 'm'.repeat(4096)),
  });
}

interface GcJson {
  candidates: { path: string; artifact: string | null; action: string }[];
  deleted: string[] | null;
}

/**
 * Two artifact experiments on `prefix` (2026.11.25, then after `since` 2026.11.26), collected by `marin gc` as a
 * user runs it: the dry listing names exactly the 2026.11.25 artifacts (as `name@version`), `--delete` removes them
 * with their `.artifact.json` records, the live versions keep theirs, and a rerun of the live graph still skips.
 */
export async function checkArtifactGc(prefix: string, exists: (path: string) => Promise<boolean>): Promise<void> {
  const logger = captureLogger();
  await runArtifacts([graph('2026.11.25')], { prefix, logger });
  await sleep(50);
  const since = new Date();
  await sleep(50);
  await runArtifacts([graph('2026.11.26')], { prefix, logger });
  const old = [`${prefix}/gcart/data/2026.11.25`, `${prefix}/gcart/model/2026.11.25`];
  const live = [`${prefix}/gcart/data/2026.11.26`, `${prefix}/gcart/model/2026.11.26`];

  const listing = await runMarin(['gc', '--prefix', prefix, '--since', since.toISOString(), '--json']);
  expect(listing.code, listing.stderr).toBe(0);
  const plan = JSON.parse(listing.stdout) as GcJson;
  expect(plan.candidates.map((c) => [c.path, c.artifact, c.action]).sort()).toEqual([
    [old[0], 'gcart/data@2026.11.25', 'delete'],
    [old[1], 'gcart/model@2026.11.25', 'delete'],
  ]);

  const deleteEnv = { MARIN_LEASE_TIMEOUT_S: '2', MARIN_LEASE_HEARTBEAT_S: '0.5' };
  const removal = await runMarin(['gc', '--prefix', prefix, '--since', since.toISOString(), '--delete', '--json'], deleteEnv);
  expect(removal.code, removal.stderr).toBe(0);
  expect([...((JSON.parse(removal.stdout) as GcJson).deleted ?? [])].sort()).toEqual(old);
  for (const p of old) {
    expect(await exists(`${p}/.artifact.json`), p).toBe(false);
    expect(await exists(`${p}/.executor_status`), p).toBe(false);
  }
  for (const p of live) expect(await exists(`${p}/.artifact.json`), p).toBe(true);

  const outcomes = await runArtifacts([graph('2026.11.26')], { prefix, logger });
  expect(outcomes[0]?.record?.version).toBe('2026.11.26');
}
