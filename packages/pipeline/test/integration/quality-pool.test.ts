// The quality stage through a pool of Python fastText actors (real processes from the curation environment):
// the same attribute values as the per-part scorer script, in the same order and parts; an actor killed mid-stage.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VersionGraph } from '@marin/executor';
import { createLocalActorBackend } from '@marin/fray';
import type { ActorBackend } from '@marin/fray';
import { silentLogger } from '@marin/rigging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partFileName } from '../../src/attributes/attribute-dataset.js';
import { tinyQualityModelPath } from '../../src/curation/curation-assets.js';
import { generateQualityExamples } from '../../src/curation/quality/quality-examples.js';
import { computeQualityScores } from '../../src/curation/quality/quality-stage.js';
import type { QualityActorPoolOptions } from '../../src/curation/quality/quality-pool.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../../src/formats/parquet-records.js';
import { defaultQualityScore } from '../../src/steps/curation/curation-steps.js';
import { curationPython } from '../helpers/curation-python.js';

const COLUMNS = [
  { name: 'id', type: 'string' as const, nullable: false },
  { name: 'text', type: 'string' as const, nullable: true },
];
const PARTS = 3;

let dir: string;
let source: string;
let reference: string;
let ids: string[][];

async function readRows(url: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of readParquetRecords(url)) out.push(r);
  return out;
}

async function partsOf(outputDir: string): Promise<Record<string, unknown>[][]> {
  return Promise.all(Array.from({ length: PARTS }, (_, i) => readRows(join(outputDir, 'outputs/main', partFileName(i, PARTS)))));
}

beforeAll(async () => {
  await curationPython();
  dir = await mkdtemp(join(tmpdir(), 'quality-pool-'));
  source = join(dir, 'src');
  const docs: { id: string; text: string | null }[] = generateQualityExamples({ seed: 5, count: 1500 }).map((e, i) => ({ id: `q-${String(i).padStart(5, '0')}`, text: e.text }));
  // Edge cases both paths must score alike: no text, an empty one, newlines inside.
  docs[3] = { id: docs[3]?.id ?? '', text: null };
  docs[4] = { id: docs[4]?.id ?? '', text: '' };
  docs[5] = { id: docs[5]?.id ?? '', text: `${docs[6]?.text ?? ''}\nsecond line\r\nthird` };
  const bounds = [0, 600, 1100, 1500];
  ids = [];
  for (let i = 0; i < PARTS; i++) {
    const rows = docs.slice(bounds[i], bounds[i + 1]);
    ids.push(rows.map((r) => r.id));
    await writeParquetPart(join(source, partFileName(i, PARTS)), rows, { columns: COLUMNS });
  }
  // The existing path: one fastText scorer process per part.
  reference = join(dir, 'reference');
  await computeQualityScores({ source, modelUrl: tinyQualityModelPath(), outputDir: reference });
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('computeQualityScores() with an actor pool', () => {
  it('gives the same attribute values, order and parts as the scorer script, for pools of 1 and 3', async () => {
    const expected = await partsOf(reference);
    expect(expected.map((p) => p.map((r) => r['id']))).toEqual(ids);
    expect(expected.flat().some((r) => (r['quality_score'] as number) > 0.5)).toBe(true);
    expect(expected.flat().some((r) => (r['quality_score'] as number) < 0.5)).toBe(true);
    for (const size of [1, 3]) {
      const out = join(dir, `pool-${size}`);
      const manifest = await computeQualityScores({ source, modelUrl: tinyQualityModelPath(), outputDir: out, actorPool: { size, batchSize: 64 } });
      expect(manifest.documents).toBe(1500);
      // Exact equality: the same float64 values, not merely close ones.
      expect(await partsOf(out)).toEqual(expected);
    }
  }, 240_000);

  it('starts no actor when every part is already done (a rerun after the manifest was lost)', async () => {
    const out = join(dir, 'pool-1');
    await rm(join(out, 'quality.json'));
    const local = createLocalActorBackend({ logger: { info: () => undefined, warn: () => undefined } });
    let groups = 0;
    const counting: ActorBackend = { ...local, createActorGroup: (...a) => ((groups += 1), local.createActorGroup(...a)) };
    const manifest = await computeQualityScores({ source, modelUrl: tinyQualityModelPath(), outputDir: out, actorPool: { size: 2, backend: counting } });
    await local.close();
    expect(groups).toBe(0);
    expect(manifest.documents).toBe(1500);
    expect(await partsOf(out)).toEqual(await partsOf(reference));
  }, 120_000);

  it('sends the batches of a killed actor to the others and still gives the same values', async () => {
    const out = join(dir, 'killed-one');
    let killed: number | undefined;
    const pool: QualityActorPoolOptions = {
      size: 2,
      batchSize: 50,
      onBatch: ({ group }) => {
        if (killed !== undefined) return;
        killed = -1;
        void (async () => {
          killed = (await (group.handles[0] ?? group.handles[1])?.health())?.pid ?? -1;
          process.kill(killed, 'SIGKILL');
        })();
      },
    };
    await computeQualityScores({ source, modelUrl: tinyQualityModelPath(), outputDir: out, actorPool: pool });
    expect(killed).toBeGreaterThan(0);
    expect(() => process.kill(killed as number, 0)).toThrow();
    expect(await partsOf(out)).toEqual(await partsOf(reference));
  }, 240_000);

  it('fails with PIPELINE_JOB_FAILED when its last actor dies mid-stage, leaving no partial part and no manifest', async () => {
    const out = join(dir, 'killed-all');
    let killing = false;
    const pool: QualityActorPoolOptions = {
      size: 1,
      batchSize: 50,
      onBatch: ({ group }) => {
        if (killing) return;
        killing = true;
        void group.handles[0]?.health().then(
          ({ pid }) => process.kill(pid, 'SIGKILL'),
          () => undefined,
        );
      },
    };
    const started = Date.now();
    const err = await computeQualityScores({ source, modelUrl: tinyQualityModelPath(), outputDir: out, actorPool: pool }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'PipelineError', code: 'PIPELINE_JOB_FAILED', details: { stage: 'actor-pool' } });
    expect(Date.now() - started).toBeLessThan(120_000);
    const written = await readdir(join(out, 'outputs/main')).catch(() => [] as string[]);
    const markers = (await readdir(join(out, '.work/score')).catch(() => [] as string[])).map((m) => m.replace(/\.done\.json$/, '.parquet'));
    // Every part file present is a finished one (its marker was written after it); the manifest is not there.
    expect(written.filter((f) => !f.startsWith('.')).every((f) => markers.includes(f))).toBe(true);
    expect(markers.length).toBeLessThan(PARTS);
    expect(await readdir(out)).not.toContain('quality.json');
  }, 240_000);

  it('refuses bad pool options before starting anything', async () => {
    const bad = computeQualityScores({ source, modelUrl: tinyQualityModelPath(), outputDir: join(dir, 'bad'), actorPool: { size: 0 } });
    await expect(bad).rejects.toMatchObject({ code: 'PIPELINE_CONFIG_INVALID', details: { field: 'size' } });
  });
});

describe('defaultQualityScore({ actorPool })', () => {
  it('does not change the step version or output path', () => {
    const graph = new VersionGraph({ prefix: '/prefix', logger: silentLogger });
    const plain = defaultQualityScore('q', source, tinyQualityModelPath());
    const pooled = defaultQualityScore('q', source, tinyQualityModelPath(), { actorPool: { size: 4, batch_size: 128 } });
    graph.computeVersion(plain, false);
    graph.computeVersion(pooled, false);
    expect(graph.outputPaths.get(pooled)).toBe(graph.outputPaths.get(plain));
    expect(graph.configs.get(pooled)).toMatchObject({ actor_pool: { size: 4, batch_size: 128 } });
  });
});
