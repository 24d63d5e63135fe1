import type { JsonValue } from '@marin/fray';
import { atomicWrite, exists, prefixJoin, readText } from '@marin/rigging';
import { listPartFiles } from '../../attributes/attribute-dataset.js';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { runTasks } from '../../dataflow/run-tasks.js';
import { PipelineError } from '../../errors.js';
import { writeParquetPart } from '../../formats/parquet-part-writer.js';
import { readParquetRecords } from '../../formats/parquet-records.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { minhashBuckets } from './fuzzy-dedup.js';
import type { MinHashCounters } from './fuzzy-dedup.js';
import { createMinHasher } from './minhash.js';
import { MinHashParamsSchema, parseMinHashParams } from './minhash-params.js';
import type { MinHashParams, MinHashParamsInput } from './minhash-params.js';

/** The file beside a MinHash attribute dataset's parts that records its params and source. */
export const MINHASH_MANIFEST = 'minhash_params.json';

/** Columns of a MinHash attribute part: the document id and its LSH buckets, space-separated. */
export const MINHASH_ATTR_COLUMNS: ParquetColumnSpec[] = [
  { name: 'id', type: 'string', nullable: false },
  { name: 'buckets', type: 'string', nullable: false },
];

/** What `minhash_params.json` holds. */
export interface MinHashManifest {
  params: MinHashParams;
  /** The source dataset directory whose parts the attribute parts mirror. */
  source: string;
  counters: MinHashCounters;
}

/** Arguments of one MinHash map task (JSON: it may run as a Fray job). */
export interface MinhashPartArgs extends DataflowTaskArgs {
  source_url: string;
  output_url: string;
  params: MinHashParams & { [key: string]: JsonValue };
  text_field: string;
}

/**
 * One part of {@link computeMinhashAttrs}: reads `id` and the text column of a source part and writes the
 * co-partitioned `{ id, buckets }` part (documents without shingles get no row). Exported for Fray jobs.
 */
export const minhashPartTask = dataflowTask<MinhashPartArgs, MinHashCounters & { [key: string]: JsonValue }>(async (args, signal) => {
  const hasher = createMinHasher(args.params);
  const counters = { documents: 0, emptySignatures: 0, textTruncated: 0 };
  const records = (async function* () {
    for await (const r of readParquetRecords(args.source_url, { columns: ['id', args.text_field], signal })) {
      yield { id: requireId(r['id'], args.source_url), text: r[args.text_field] };
    }
  })();
  const rows = (async function* () {
    for await (const row of minhashBuckets(records, hasher, { source: args.source_url }, counters)) yield { id: row.id, buckets: row.buckets.join(' ') };
  })();
  await writeParquetPart(args.output_url, rows, { columns: MINHASH_ATTR_COLUMNS });
  return counters;
});

function requireId(id: unknown, url: string): string {
  if (typeof id !== 'string' || id === '') {
    throw new PipelineError('PIPELINE_INPUT_INVALID', `${url} has a record without a string "id"; normalize the dataset first`, { details: { path: url, column: 'id' } });
  }
  return id;
}

/** Options of {@link computeMinhashAttrs}. */
export interface ComputeMinhashAttrsOptions {
  /** A partitioned dataset directory (`part-NNNNN-of-NNNNN.parquet`, such as normalize's `outputs/main`). */
  source: string;
  /** The attribute dataset directory; gets the same part names plus `minhash_params.json`. */
  outputDir: string;
  params?: MinHashParamsInput;
  /** @default "text" */
  textField?: string;
  /** Scratch directory for task markers. @default `<outputDir>/.work` */
  workDir?: string;
  /** @default 4 */
  maxParallelism?: number;
  /** One Fray job per part; `null` runs in this process. @default null */
  resources?: Parameters<typeof runTasks>[0]['resources'];
  signal?: AbortSignal;
  /** @default "minhash" */
  jobNamePrefix?: string;
}

/**
 * Marin's `compute_minhash_attrs`: MinHash + LSH buckets of every document of a partitioned dataset, written as a
 * co-partitioned attribute dataset, one resumable task per part; then `minhash_params.json` (written last, so its
 * presence means the dataset is complete).
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for bad params; PIPELINE_INPUT_NOT_FOUND / PIPELINE_INPUT_INVALID for the source
 */
export async function computeMinhashAttrs(options: ComputeMinhashAttrsOptions): Promise<MinHashManifest> {
  const params = parseMinHashParams(options.params ?? {});
  const manifestUrl = prefixJoin(options.outputDir, MINHASH_MANIFEST);
  if (await exists(manifestUrl)) return readMinhashManifest(options.outputDir);
  const parts = await listPartFiles(options.source);
  const workDir = options.workDir ?? prefixJoin(options.outputDir, '.work');
  const results = await runTasks<MinhashPartArgs, MinHashCounters & { [key: string]: JsonValue }>({
    phase: 'minhash',
    workDir,
    tasks: parts.map((url) => {
      const name = url.slice(url.lastIndexOf('/') + 1);
      return { name: name.replace(/\.parquet$/, ''), args: { source_url: url, output_url: prefixJoin(options.outputDir, name), params: params as MinhashPartArgs['params'], text_field: options.textField ?? 'text' } };
    }),
    task: minhashPartTask,
    exportName: 'minhashPartTask',
    resources: options.resources ?? null,
    maxParallelism: options.maxParallelism ?? 4,
    signal: options.signal ?? new AbortController().signal,
    jobNamePrefix: options.jobNamePrefix ?? 'minhash',
  });
  const counters = { documents: 0, emptySignatures: 0, textTruncated: 0 };
  for (const r of results) {
    counters.documents += r.documents;
    counters.emptySignatures += r.emptySignatures;
    counters.textTruncated += r.textTruncated;
  }
  const manifest: MinHashManifest = { params, source: options.source, counters };
  await atomicWrite(manifestUrl, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Reads a MinHash attribute dataset's manifest.
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND when it is missing (the dataset is unfinished); PIPELINE_INPUT_INVALID when malformed
 */
export async function readMinhashManifest(dir: string): Promise<MinHashManifest> {
  const url = prefixJoin(dir, MINHASH_MANIFEST);
  let text: string;
  try {
    text = await readText(url);
  } catch (cause) {
    throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `${dir} is not a finished MinHash attribute dataset (no ${MINHASH_MANIFEST}); run the MinHash stage on it`, { cause, details: { path: url } });
  }
  try {
    const raw = JSON.parse(text) as { params: unknown; source: string; counters: MinHashCounters };
    return { ...raw, params: MinHashParamsSchema.parse(raw.params) };
  } catch (cause) {
    throw new PipelineError('PIPELINE_INPUT_INVALID', `${url} is not a MinHash manifest`, { cause, details: { path: url } });
  }
}
