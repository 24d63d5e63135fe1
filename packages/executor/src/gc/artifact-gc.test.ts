import { exists, readText, writeText } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { captureLogger } from '../../test/helpers/capture-logger.js';
import { runArtifacts } from '../artifact/artifact-runner.js';
import { ArtifactStep } from '../artifact/artifact-step.js';
import { RECORD_FILE } from '../artifact/record.js';
import { GC_TOMBSTONE_FILE, writeGcTombstone } from '../status/gc-tombstone.js';
import { deleteGcCandidates } from './gc-delete.js';
import { planGc } from './gc-plan.js';

// gc's leases are short (its wait must only exceed timeoutS); the runs keep ordinary ones on a loaded machine.
const timings = { heartbeatS: 0.05, timeoutS: 0.2, pollS: 0.02 };
const runTimings = { heartbeatS: 1, timeoutS: 30, pollS: 0.05 };
let n = 0;

function graph(version: string, calls = { data: 0, model: 0 }) {
  const data = new ArtifactStep({
    name: 'gcart/data',
    version,
    buildConfig: (ctx) => ({ out: ctx.outputPath }),
    run: async (c: { out: string }) => {
      calls.data++;
      await writeText(`${c.out}/data.bin`, 'd'.repeat(100));
    },
  });
  const model = new ArtifactStep({
    name: 'gcart/model',
    version,
    deps: [data],
    buildConfig: (ctx) => ({ data: ctx.artifactPath(data), out: ctx.outputPath }),
    run: async (c: { out: string }) => {
      calls.model++;
      await writeText(`${c.out}/model.bin`, 'm'.repeat(200));
    },
  });
  return { data, model, calls };
}

const quiet = { logger: captureLogger(), timings: runTimings };

describe('marin gc over {name}/{version} artifacts', () => {
  it('keeps the artifacts of live experiments; an artifact version no live experiment references is a candidate, named name@version', async () => {
    const prefix = `memory://gc-artifacts-${++n}`;
    await runArtifacts([graph('2026.11.25').model], { prefix, ...quiet });
    const since = new Date(Date.now() + 5);
    await new Promise((r) => setTimeout(r, 20));
    await runArtifacts([graph('2026.11.26').model], { prefix, ...quiet });
    const plan = await planGc({ prefix, since, timings });
    expect(plan.candidates.map((c) => [c.rel, c.artifact, c.action]).sort()).toEqual([
      ['gcart/data/2026.11.25', 'gcart/data@2026.11.25', 'delete'],
      ['gcart/model/2026.11.25', 'gcart/model@2026.11.25', 'delete'],
    ]);
    // Without --since every experiment file is live: nothing to collect.
    expect((await planGc({ prefix, timings })).candidates).toEqual([]);
  });

  it("keeps the lineage of a referenced artifact (its record's deps, its step-runner info), transitively, and finds record-only outputs", async () => {
    const prefix = `memory://gc-artifacts-${++n}`;
    // Built as Python's lazy runner builds: no experiment file.
    await runArtifacts([graph('2026.11.25').model], { prefix, experimentFile: false, ...quiet });
    await runArtifacts([graph('2026.11.24').model], { prefix, experimentFile: false, ...quiet });
    // A record left without status or info (say, by a hand-made registration) is still an artifact output.
    await writeText(`${prefix}/gcart/orphan/2026.11.25/${RECORD_FILE}`, JSON.stringify({ name: 'gcart/orphan', version: '2026.11.25' }));
    // A live experiment names only the top artifact of 2026.11.25.
    await writeText(
      `${prefix}/experiments/top-abcdef.json`,
      JSON.stringify({ created_date: '2026-11-25T00:00:00.000000', prefix, steps: [{ output_path: `${prefix}/gcart/model/2026.11.25`, dependencies: [] }] }),
    );
    const plan = await planGc({ prefix, timings });
    expect(plan.candidates.map((c) => c.rel).sort()).toEqual(['gcart/data/2026.11.24', 'gcart/model/2026.11.24', 'gcart/orphan/2026.11.25']);
    expect(plan.reachable).toBe(2);
  });

  it('deletes a candidate artifact with its record under the tombstone protocol; a rerun rebuilds it', async () => {
    const prefix = `memory://gc-artifacts-${++n}`;
    const old = graph('2026.11.25');
    await runArtifacts([old.model], { prefix, experimentFile: false, ...quiet });
    const plan = await planGc({ prefix, timings });
    expect(plan.candidates.filter((c) => c.action === 'delete')).toHaveLength(2);
    const result = await deleteGcCandidates(plan, { timings, waitMs: 400, logger: captureLogger() });
    expect(result.deleted.map((c) => c.artifact).sort()).toEqual(['gcart/data@2026.11.25', 'gcart/model@2026.11.25']);
    for (const rel of ['gcart/data/2026.11.25', 'gcart/model/2026.11.25']) {
      expect(await exists(`${prefix}/${rel}/${RECORD_FILE}`)).toBe(false);
      expect(await exists(`${prefix}/${rel}/.executor_status`)).toBe(false);
    }
    const again = graph('2026.11.25');
    await runArtifacts([again.model], { prefix, ...quiet });
    expect(again.calls).toEqual({ data: 1, model: 1 });
  });

  it('an artifact run reclaims a built artifact gc has marked (tombstone removed under the lease) and serves it', async () => {
    const prefix = `memory://gc-artifacts-${++n}`;
    await runArtifacts([graph('2026.11.25').model], { prefix, ...quiet });
    const out = `${prefix}/gcart/model/2026.11.25`;
    await writeGcTombstone(out, { gc: 'marin-gc-test-1', written: Date.now() / 1000, status: 'SUCCESS' });
    const logger = captureLogger();
    const again = graph('2026.11.25');
    const [loaded] = await runArtifacts([again.model], { prefix, logger, timings: runTimings });
    expect(again.calls).toEqual({ data: 0, model: 0 });
    expect(await exists(`${out}/${GC_TOMBSTONE_FILE}`)).toBe(false);
    expect(logger.all()).toContain('marked for deletion by marin gc');
    expect(loaded?.record?.name).toBe('gcart/model');
    expect(await readText(`${out}/model.bin`)).toHaveLength(200);
  });
});
