// Quality scoring through an actor pool vs the per-part scorer script, on the same seeded documents in one run:
// `computeQualityScores` as it runs by default (one fastText scorer process per part, `maxParallelism` 2) and with
// `actorPool: { size: N }` for N = 1, 2, 4 (Python fastText actors from the curation environment, each loading the
// model once). Wall-clock docs/s end to end (part reads, scoring, parquet writes; pool start-up included and also
// reported alone). Every pooled output is checked equal to the script's before its figure counts.
//
//   node --conditions=@marin/source --import tsx packages/pipeline/bench/quality-pool.ts [--docs 50000] [--parts 4] [--batch 512]
//
// Needs the curation Python environment (node tools/python-env/python-env.mjs packages/pipeline/python/curation.lock).
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { partFileName } from '../src/attributes/attribute-dataset.js';
import { tinyQualityModelPath } from '../src/curation/curation-assets.js';
import { generateQualityExamples } from '../src/curation/quality/quality-examples.js';
import { startQualityPool } from '../src/curation/quality/quality-pool.js';
import { computeQualityScores } from '../src/curation/quality/quality-stage.js';
import { writeParquetPart } from '../src/formats/parquet-part-writer.js';
import { readParquetRecords } from '../src/formats/parquet-records.js';
import { curationPython } from '../test/helpers/curation-python.js';

const { values: args } = parseArgs({ options: { docs: { type: 'string', default: '50000' }, parts: { type: 'string', default: '4' }, batch: { type: 'string', default: '512' } } });
const docs = Number(args.docs);
const parts = Number(args.parts);
const batchSize = Number(args.batch);
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' / ');

async function outputs(dir: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < parts; i++) for await (const r of readParquetRecords(join(dir, 'outputs/main', partFileName(i, parts)))) rows.push(r);
  return rows;
}

await curationPython();
const dir = await mkdtemp(join(tmpdir(), 'bench-quality-pool-'));
try {
  console.log(`quality scoring: ${docs} documents in ${parts} parts, batches of ${batchSize}; load average at start ${load()}`);
  const all = generateQualityExamples({ seed: 11, count: docs }).map((e, i) => ({ id: `d-${String(i).padStart(7, '0')}`, text: e.text }));
  const per = Math.ceil(docs / parts);
  const source = join(dir, 'src');
  for (let i = 0; i < parts; i++) {
    await writeParquetPart(join(source, partFileName(i, parts)), all.slice(i * per, (i + 1) * per), {
      columns: [
        { name: 'id', type: 'string', nullable: false },
        { name: 'text', type: 'string', nullable: true },
      ],
    });
  }
  let t = performance.now();
  await computeQualityScores({ source, modelUrl: tinyQualityModelPath(), outputDir: join(dir, 'script') });
  const scriptS = (performance.now() - t) / 1000;
  console.log(`  scorer script per part (maxParallelism 2): ${(docs / scriptS).toFixed(0)} docs/s (${scriptS.toFixed(2)} s)  load ${load()}`);
  const expected = await outputs(join(dir, 'script'));
  for (const size of [1, 2, 4]) {
    t = performance.now();
    const pool = await startQualityPool({ size }, tinyQualityModelPath(), 'hq');
    const startS = (performance.now() - t) / 1000;
    await pool.close();
    t = performance.now();
    const out = join(dir, `pool-${size}`);
    await computeQualityScores({ source, modelUrl: tinyQualityModelPath(), outputDir: out, actorPool: { size, batchSize } });
    const poolS = (performance.now() - t) / 1000;
    const same = isDeepStrictEqual(await outputs(out), expected);
    if (!same) throw new Error(`the pool of ${size} gave other scores than the scorer script`);
    console.log(
      `  actor pool of ${size}: ${(docs / poolS).toFixed(0)} docs/s (${poolS.toFixed(2)} s, ${(scriptS / poolS).toFixed(2)}x the script; pool start alone ${startS.toFixed(2)} s); equal output  load ${load()}`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
