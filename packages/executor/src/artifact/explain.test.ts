import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLease, leaseTimings } from '@marin/rigging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureLogger } from '../../test/helpers/capture-logger.js';
import { makeTempDir } from '../../test/helpers/temp-dir.js';
import type { TempDir } from '../../test/helpers/temp-dir.js';
import { fileUnder, LEASE_FILE, STATUS_FILE } from '../status/status-store.js';
import { runArtifacts } from './artifact-runner.js';
import { ArtifactStep } from './artifact-step.js';
import { explainArtifacts, formatArtifactExplanation } from './explain.js';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir('artifact-explain');
});
afterEach(async () => {
  await tmp.close();
});

function graph(opts: { version?: string; label?: string; lr?: number; pin?: string } = {}) {
  const version = opts.version ?? '2026.11.25';
  const data = new ArtifactStep({
    name: 'ex/data',
    version,
    buildConfig: (ctx) => ({ n: 3, out: ctx.outputPath }),
    run: async (c: { out: string }) => {
      await mkdir(c.out, { recursive: true });
    },
  });
  const model = new ArtifactStep({
    name: 'ex/model',
    version,
    deps: [data],
    expectedFingerprint: opts.pin ?? null,
    buildConfig: (ctx) => ({ data: ctx.artifactPath(data), label: opts.label ?? 'base', lr: opts.lr ?? 0.1 }),
    run: () => undefined,
  });
  return { data, model };
}

async function listing(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe('explainArtifacts()', () => {
  it('says why each artifact would run, deps first, and writes nothing', async () => {
    const { model } = graph();
    const before = await listing(tmp.path);
    const x = await explainArtifacts([model], { prefix: tmp.path });
    expect(x.map((e) => [e.id, e.action])).toEqual([
      ['ex/data@2026.11.25', 'run'],
      ['ex/model@2026.11.25', 'run'],
    ]);
    expect(x[1]?.reason).toContain('not built (no status)');
    expect(x[1]?.reason).toContain('after ex/data@2026.11.25');
    expect(x[1]?.diff).toBeNull();
    expect(await listing(tmp.path)).toEqual(before);
  });

  it('built and unchanged: skip, and the deps of a built artifact are pruned', async () => {
    await runArtifacts([graph().model], { prefix: tmp.path, logger: captureLogger() });
    const x = await explainArtifacts([graph().model], { prefix: tmp.path });
    expect(x.map((e) => e.action)).toEqual(['prune', 'skip']);
    expect(x[1]?.driftFrom).toBeNull();
    expect(x[1]?.diff).toBeNull();
  });

  it('drift: a changed recipe under the same version is served, with the changed fingerprint fields named', async () => {
    await runArtifacts([graph().model], { prefix: tmp.path, logger: captureLogger() });
    const recorded = await graph().model.fingerprint();
    const changed = graph({ label: 'tuned', lr: 0.2 });
    const [, m] = await explainArtifacts([changed.model], { prefix: tmp.path });
    expect(m?.action).toBe('skip');
    expect(m?.driftFrom).toBe(recorded);
    expect(m?.fingerprint).toBe(await changed.model.fingerprint());
    expect(m?.diff).toEqual(['~ label: "base" → "tuned"', '~ lr: 0.1 → 0.2']);
    expect(m?.reason).toContain('changed label, lr');
    expect(formatArtifactExplanation([m!])).toContain('    diff against its record:');

    // Pinned to the new recipe: the run would refuse the recorded build.
    const pinned = graph({ label: 'tuned', lr: 0.2, pin: await changed.model.fingerprint() });
    const [, p] = await explainArtifacts([pinned.model], { prefix: tmp.path });
    expect(p?.action).toBe('refuse');
    expect(p?.diff).toEqual(['~ label: "base" → "tuned"', '~ lr: 0.1 → 0.2']);
  });

  it('a new version runs, diffed against the nearest other version of the same name', async () => {
    await runArtifacts([graph().model], { prefix: tmp.path, logger: captureLogger() });
    const next = graph({ version: '2026.11.26', lr: 0.3 });
    const [d, m] = await explainArtifacts([next.model], { prefix: tmp.path });
    expect(d?.action).toBe('run');
    expect(d?.diff).toEqual([]); // same recipe as 2026.11.25
    expect(d?.reason).toContain('same recipe as 2026.11.25');
    expect(m?.action).toBe('run');
    expect(m?.baseline).toBe(join(tmp.path, 'ex/model/2026.11.25'));
    expect(m?.diff).toEqual(['~ data: "ex/data@2026.11.25" → "ex/data@2026.11.26"', '~ lr: 0.1 → 0.3']);
  });

  it('RUNNING under a fresh lease held elsewhere waits; under a stale one it is taken over', async () => {
    const { data } = graph();
    const out = join(tmp.path, 'ex/data/2026.11.25');
    await mkdir(out, { recursive: true });
    await writeFile(join(out, STATUS_FILE), 'RUNNING');
    const timings = leaseTimings();
    const holder = createLease(fileUnder(out, LEASE_FILE), { workerId: 'other-host-1', timings });
    expect(await holder.tryAcquire()).toBe(true);
    const [fresh] = await explainArtifacts([data], { prefix: tmp.path, timings });
    expect(fresh?.action).toBe('wait');
    expect(fresh?.reason).toContain('other-host-1');
    const later = () => Date.now() + 10_000 * timings.timeoutS;
    const [stale] = await explainArtifacts([data], { prefix: tmp.path, timings, now: later });
    expect(stale?.action).toBe('take over');
  });

  it('a mutable version is rebuilt every run and a failed one reruns', async () => {
    const dev = graph({ version: 'dev' });
    const x = await explainArtifacts([dev.model], { prefix: tmp.path });
    expect(x.map((e) => e.action)).toEqual(['rebuild', 'rebuild']);
    const out = join(tmp.path, 'ex/data/2026.11.25');
    await mkdir(out, { recursive: true });
    await writeFile(join(out, STATUS_FILE), 'FAILED');
    const [f] = await explainArtifacts([graph().data], { prefix: tmp.path });
    expect(f?.action).toBe('run');
    expect(f?.reason).toContain('previous attempt FAILED');
  });
});
