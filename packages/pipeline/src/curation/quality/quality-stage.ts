import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '@marin/fray';
import { atomicWrite, copy, exists, prefixJoin, readText, schemeOf } from '@marin/rigging';
import { listPartFiles } from '../../attributes/attribute-dataset.js';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { runTasks } from '../../dataflow/run-tasks.js';
import { writeParquetPart } from '../../formats/parquet-part-writer.js';
import { readParquetRecords } from '../../formats/parquet-records.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { ensureCurationPython, scoreWithFasttext } from './fasttext-python.js';
import { checkQualityPoolOptions, startQualityPool } from './quality-pool.js';
import type { QualityPool, QualityActorPoolOptions } from './quality-pool.js';

/** Columns of a quality attribute part. */
export const QUALITY_COLUMNS: ParquetColumnSpec[] = [
  { name: 'id', type: 'string', nullable: false },
  { name: 'quality_score', type: 'float64', nullable: false },
];

/** One scoring task: a source part into its co-partitioned `{ id, quality_score }` part. */
export interface QualityScoreArgs extends DataflowTaskArgs {
  source_url: string;
  model_url: string;
  label: string;
  output_url: string;
  text_field: string;
}

/**
 * Exported for Fray jobs: builds (or reuses) the curation Python environment on the machine it runs on, copies a
 * remote model to a local temp file, and streams the part's texts through the official fastText bindings.
 */
export const qualityScoreTask = dataflowTask<QualityScoreArgs, { [key: string]: JsonValue }>(async (args, signal) => {
  const python = await ensureCurationPython({ signal });
  return withLocalModel(args.model_url, async (modelPath) => {
    const records = (async function* () {
      for await (const r of readParquetRecords(args.source_url, { columns: ['id', args.text_field], signal })) yield { id: r['id'] as string, text: r[args.text_field] };
    })();
    return writeQualityPart(args.output_url, scoreWithFasttext(records, { python, modelPath, label: args.label, signal }));
  });
});

/** Runs `fn` with a local path of the model: the file itself, or a temp copy of a remote one (removed after). */
async function withLocalModel<T>(modelUrl: string, fn: (modelPath: string) => Promise<T>): Promise<T> {
  const local = schemeOf(modelUrl) === 'file' || !modelUrl.includes('://');
  const tmp = local ? null : await mkdtemp(join(tmpdir(), 'quality-model-'));
  try {
    const modelPath = tmp === null ? modelUrl.replace(/^file:\/\//, '') : join(tmp, 'model.bin');
    if (tmp !== null) await copy(modelUrl, modelPath);
    return await fn(modelPath);
  } finally {
    if (tmp !== null) await rm(tmp, { recursive: true, force: true });
  }
}

/** Writes scored rows as one attribute part (visible only once complete) and returns the task's result. */
async function writeQualityPart(outputUrl: string, scores: AsyncIterable<{ id: string; quality_score: number }>): Promise<{ [key: string]: JsonValue }> {
  let documents = 0;
  let total = 0;
  const rows = (async function* () {
    for await (const s of scores) {
      documents++;
      total += s.quality_score;
      yield s;
    }
  })();
  await writeParquetPart(outputUrl, rows, { columns: QUALITY_COLUMNS });
  return { documents, mean_quality_score: documents === 0 ? 0 : total / documents };
}

/** The same task as {@link qualityScoreTask} (same arguments, marker and output), scored by an actor pool. */
function pooledQualityTask(pool: () => Promise<QualityPool>) {
  return dataflowTask<QualityScoreArgs, { [key: string]: JsonValue }>(async (args, signal) =>
    writeQualityPart(args.output_url, (await pool()).scorePart(args.source_url, args.text_field, signal)),
  );
}

/** Options of {@link computeQualityScores}. */
export interface ComputeQualityScoresOptions {
  source: string;
  /** A fastText model file (local or any storage URL). */
  modelUrl: string;
  /** The label whose probability is the score. @default "hq" */
  label?: string;
  outputDir: string;
  /** @default "text" */
  textField?: string;
  /** @default 2 */
  maxParallelism?: number;
  resources?: Parameters<typeof runTasks>[0]['resources'];
  signal?: AbortSignal;
  /** @default "quality" */
  jobNamePrefix?: string;
  /**
   * Score through a pool of fastText actors (each loads the model once) instead of one scorer process per part;
   * the output is the same. Parts run in this process (`maxParallelism` at once); `resources` is ignored.
   */
  actorPool?: QualityActorPoolOptions;
}

/**
 * Scores every document of a partitioned dataset with a fastText classifier into a co-partitioned attribute dataset
 * under `outputs/main/` (`{ id, quality_score }`), one resumable task per part; `quality.json` last.
 */
export async function computeQualityScores(options: ComputeQualityScoresOptions): Promise<{ main_output_dir: string; documents: number }> {
  const manifestUrl = prefixJoin(options.outputDir, 'quality.json');
  if (await exists(manifestUrl)) return JSON.parse(await readText(manifestUrl)) as { main_output_dir: string; documents: number };
  const parts = await listPartFiles(options.source);
  const mainDir = prefixJoin(options.outputDir, 'outputs/main');
  const label = options.label ?? 'hq';
  const run = (task: typeof qualityScoreTask, resources: ComputeQualityScoresOptions['resources'] | null) =>
    runTasks<QualityScoreArgs, { [key: string]: JsonValue }>({
      phase: 'score',
      workDir: prefixJoin(options.outputDir, '.work'),
      tasks: parts.map((url) => {
        const name = url.slice(url.lastIndexOf('/') + 1);
        return { name: name.replace(/\.parquet$/, ''), args: { source_url: url, model_url: options.modelUrl, label, output_url: prefixJoin(mainDir, name), text_field: options.textField ?? 'text' } };
      }),
      task,
      exportName: 'qualityScoreTask',
      resources: resources ?? null,
      maxParallelism: options.maxParallelism ?? 2,
      signal: options.signal ?? new AbortController().signal,
      jobNamePrefix: options.jobNamePrefix ?? 'quality',
    });
  const pool = options.actorPool;
  const results =
    pool === undefined
      ? await run(qualityScoreTask, options.resources)
      : await withLocalModel(options.modelUrl, async (modelPath) => {
          checkQualityPoolOptions(pool);
          // Started by the first part that is not done yet: a rerun over finished parts starts no actor.
          let started: Promise<QualityPool> | undefined;
          const getPool = (): Promise<QualityPool> => (started ??= startQualityPool(pool, modelPath, label));
          try {
            return await run(pooledQualityTask(getPool), null);
          } finally {
            if (started !== undefined) await (await started.catch(() => undefined))?.close();
          }
        });
  const manifest = { main_output_dir: mainDir, documents: results.reduce((s, r) => s + Number(r['documents']), 0) };
  await atomicWrite(manifestUrl, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
