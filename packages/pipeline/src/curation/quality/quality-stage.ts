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
  const local = schemeOf(args.model_url) === 'file' || !args.model_url.includes('://');
  const tmp = local ? null : await mkdtemp(join(tmpdir(), 'quality-model-'));
  try {
    const modelPath = tmp === null ? args.model_url.replace(/^file:\/\//, '') : join(tmp, 'model.bin');
    if (tmp !== null) await copy(args.model_url, modelPath);
    let documents = 0;
    let total = 0;
    const records = (async function* () {
      for await (const r of readParquetRecords(args.source_url, { columns: ['id', args.text_field], signal })) yield { id: r['id'] as string, text: r[args.text_field] };
    })();
    const rows = (async function* () {
      for await (const s of scoreWithFasttext(records, { python, modelPath, label: args.label, signal })) {
        documents++;
        total += s.quality_score;
        yield s;
      }
    })();
    await writeParquetPart(args.output_url, rows, { columns: QUALITY_COLUMNS });
    return { documents, mean_quality_score: documents === 0 ? 0 : total / documents };
  } finally {
    if (tmp !== null) await rm(tmp, { recursive: true, force: true });
  }
});

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
  const results = await runTasks<QualityScoreArgs, { [key: string]: JsonValue }>({
    phase: 'score',
    workDir: prefixJoin(options.outputDir, '.work'),
    tasks: parts.map((url) => {
      const name = url.slice(url.lastIndexOf('/') + 1);
      return { name: name.replace(/\.parquet$/, ''), args: { source_url: url, model_url: options.modelUrl, label: options.label ?? 'hq', output_url: prefixJoin(mainDir, name), text_field: options.textField ?? 'text' } };
    }),
    task: qualityScoreTask,
    exportName: 'qualityScoreTask',
    resources: options.resources ?? null,
    maxParallelism: options.maxParallelism ?? 2,
    signal: options.signal ?? new AbortController().signal,
    jobNamePrefix: options.jobNamePrefix ?? 'quality',
  });
  const manifest = { main_output_dir: mainDir, documents: results.reduce((s, r) => s + Number(r['documents']), 0) };
  await atomicWrite(manifestUrl, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
