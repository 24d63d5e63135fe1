import type { JsonValue } from '@marin/fray';
import { atomicWrite, exists, prefixJoin, readBytes, readText } from '@marin/rigging';
import { listPartFiles } from '../../attributes/attribute-dataset.js';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { runTasks } from '../../dataflow/run-tasks.js';
import { PipelineError } from '../../errors.js';
import { listDatasetParts } from '../../formats/dataset-parts.js';
import { createParquetPartWriter, writeParquetPart } from '../../formats/parquet-part-writer.js';
import { readParquetRecords } from '../../formats/parquet-records.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { readPartRecords } from '../../formats/record-reader.js';
import { addEvalRecord, scoreDocument } from './decon-marker.js';
import { EvalHashFilter, deserializeHashMembership } from './hash-membership.js';
import { NGramConfigSchema } from './ngram-features.js';
import type { NGramConfig, NGramConfigInput } from './ngram-features.js';

/** Columns of a decontamination attribute part. `matched_hashes` are 16-hex hashes, space-separated. */
export const DECON_COLUMNS: ParquetColumnSpec[] = [
  { name: 'id', type: 'string', nullable: false },
  { name: 'contaminated', type: 'bool', nullable: false },
  { name: 'max_overlap', type: 'float64', nullable: false },
  { name: 'matched_hashes', type: 'string', nullable: false },
];

/** Columns of the eval-hash sidecar: one row per (hash, eval record), the hash as 16 hex digits. */
export const EVAL_INDEX_COLUMNS: ParquetColumnSpec[] = [
  { name: 'hash', type: 'string', nullable: false },
  { name: 'eval_id', type: 'string', nullable: false },
];

/** Where the filter and its sidecar live under a decon output (Marin's `_bloom/` layout). */
export function evalFilterPaths(outputDir: string): { filter: string; index: string } {
  return { filter: prefixJoin(outputDir, '_bloom/filter.bin'), index: prefixJoin(outputDir, '_bloom/eval_hash_index.parquet') };
}

function hex(v: bigint): string {
  return v.toString(16).padStart(16, '0');
}

/** Options of {@link buildEvalFilter}. */
export interface BuildEvalFilterOptions {
  /** Eval datasets: files or directories of parquet / JSON lines, as any pipeline input. */
  evalPaths: readonly string[];
  outputDir: string;
  ngram: NGramConfig;
  /** @default "text" */
  textField?: string;
  /** @default 4000000 */
  exactSetMaxHashes?: number;
  /** @default 1e-9 */
  falsePositiveRate?: number;
}

/**
 * Builds the eval filter (exact set or Bloom filter, by size) and streams the sidecar
 * `_bloom/eval_hash_index.parquet`; `filter.bin` is written last, so its presence means the build finished (a rerun
 * skips it). An eval record's id is its `id` field, else `<file>::<index>`.
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND when the eval paths hold no records file
 */
export async function buildEvalFilter(options: BuildEvalFilterOptions): Promise<{ kind: string; hashes: number; records: number }> {
  const paths = evalFilterPaths(options.outputDir);
  if (await exists(paths.filter)) {
    const f = deserializeHashMembership(await readBytes(paths.filter), paths.filter);
    return { kind: f.kind, hashes: f.count, records: -1 };
  }
  const parts = await listDatasetParts(options.evalPaths);
  if (parts.length === 0) throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `no eval records under ${options.evalPaths.join(', ')}`, { details: { paths: [...options.evalPaths] } });
  const filter = new EvalHashFilter({ exactSetMaxHashes: options.exactSetMaxHashes ?? 4_000_000, falsePositiveRate: options.falsePositiveRate ?? 1e-9 });
  const textField = options.textField ?? 'text';
  let records = 0;
  await using index = await createParquetPartWriter(paths.index, { columns: EVAL_INDEX_COLUMNS });
  const counters = new Map<string, number>();
  for (const part of parts) {
    for await (const r of readPartRecords(part)) {
      const n = counters.get(part.url) ?? 0;
      counters.set(part.url, n + 1);
      const id = typeof r['id'] === 'string' && r['id'] !== '' ? r['id'] : `${part.url}::${n}`;
      const rows = addEvalRecord(filter, r[textField], id, options.ngram);
      if (rows.length > 0) records++;
      for (const row of rows) await index.write({ hash: hex(row.hash), eval_id: row.eval_id });
    }
  }
  await index.close();
  await atomicWrite(paths.filter, filter.serialize());
  return { kind: filter.kind, hashes: filter.count, records };
}

/** One mark task: a source part scored against the filter into its co-partitioned attribute part. */
export interface DeconMarkArgs extends DataflowTaskArgs {
  source_url: string;
  filter_url: string;
  output_url: string;
  text_field: string;
  ngram: NGramConfig & { [key: string]: JsonValue };
}

/** Exported for Fray jobs. */
export const deconMarkTask = dataflowTask<DeconMarkArgs, { [key: string]: JsonValue }>(async (args, signal) => {
  const filter = deserializeHashMembership(await readBytes(args.filter_url), args.filter_url);
  let contaminated = 0;
  let clean = 0;
  const rows = (async function* () {
    for await (const r of readParquetRecords(args.source_url, { columns: ['id', args.text_field], signal })) {
      const text = r[args.text_field] ?? '';
      if (typeof text !== 'string') {
        throw new PipelineError('PIPELINE_INPUT_INVALID', `${args.source_url}: document "${String(r['id'])}" has a ${typeof text} ${args.text_field}`, { details: { path: args.source_url, column: args.text_field } });
      }
      const a = scoreDocument(r['id'] as string, text, filter, args.ngram);
      if (a.contaminated) contaminated++;
      else clean++;
      yield { id: a.id, contaminated: a.contaminated, max_overlap: a.max_overlap, matched_hashes: a.matched_hashes.map(hex).join(' ') };
    }
  })();
  await writeParquetPart(args.output_url, rows, { columns: DECON_COLUMNS });
  return { contaminated, clean };
});

/** Options of {@link computeDecon}. */
export interface ComputeDeconOptions {
  /** The partitioned dataset to mark (`part-NNNNN-of-NNNNN.parquet`). */
  source: string;
  evalPaths: readonly string[];
  outputDir: string;
  ngram?: NGramConfigInput;
  /** @default "text" */
  textField?: string;
  /** The eval records' text field (a benchmark's question is often `query` or `question`). @default `textField` */
  evalTextField?: string;
  /** @default 4000000 */
  exactSetMaxHashes?: number;
  /** @default 1e-9 */
  falsePositiveRate?: number;
  /** @default 4 */
  maxParallelism?: number;
  resources?: Parameters<typeof runTasks>[0]['resources'];
  signal?: AbortSignal;
  /** @default "decon" */
  jobNamePrefix?: string;
}

/** What `decon.json` records. */
export interface DeconManifest {
  main_output_dir: string;
  eval_hash_index_path: string;
  filter: { kind: string; hashes: number };
  num_partitions: number;
  counters: { contaminated: number; clean: number };
}

/**
 * Marin's `decon_to_parquet`: builds the eval filter once, then marks every source part (one resumable task each)
 * into `outputs/main/<same part name>` with `{ id, contaminated, max_overlap, matched_hashes }`; `decon.json` last.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for a bad n-gram config
 */
export async function computeDecon(options: ComputeDeconOptions): Promise<DeconManifest> {
  const manifestUrl = prefixJoin(options.outputDir, 'decon.json');
  if (await exists(manifestUrl)) return JSON.parse(await readText(manifestUrl)) as DeconManifest;
  const parsed = NGramConfigSchema.safeParse(options.ngram ?? {});
  if (!parsed.success) throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid decontamination n-gram config', { details: { issues: parsed.error.issues } });
  const ngram = parsed.data;
  const built = await buildEvalFilter({
    evalPaths: options.evalPaths,
    outputDir: options.outputDir,
    ngram,
    textField: options.evalTextField ?? options.textField ?? 'text',
    ...(options.exactSetMaxHashes !== undefined ? { exactSetMaxHashes: options.exactSetMaxHashes } : {}),
    ...(options.falsePositiveRate !== undefined ? { falsePositiveRate: options.falsePositiveRate } : {}),
  });
  const parts = await listPartFiles(options.source);
  const paths = evalFilterPaths(options.outputDir);
  const mainDir = prefixJoin(options.outputDir, 'outputs/main');
  const results = await runTasks<DeconMarkArgs, { [key: string]: JsonValue }>({
    phase: 'mark',
    workDir: prefixJoin(options.outputDir, '.work'),
    tasks: parts.map((url) => {
      const name = url.slice(url.lastIndexOf('/') + 1);
      return { name: name.replace(/\.parquet$/, ''), args: { source_url: url, filter_url: paths.filter, output_url: prefixJoin(mainDir, name), text_field: options.textField ?? 'text', ngram: ngram as DeconMarkArgs['ngram'] } };
    }),
    task: deconMarkTask,
    exportName: 'deconMarkTask',
    resources: options.resources ?? null,
    maxParallelism: options.maxParallelism ?? 4,
    signal: options.signal ?? new AbortController().signal,
    jobNamePrefix: options.jobNamePrefix ?? 'decon',
  });
  const manifest: DeconManifest = {
    main_output_dir: mainDir,
    eval_hash_index_path: paths.index,
    filter: { kind: built.kind, hashes: built.hashes },
    num_partitions: parts.length,
    counters: { contaminated: results.reduce((s, r) => s + Number(r['contaminated']), 0), clean: results.reduce((s, r) => s + Number(r['clean']), 0) },
  };
  await atomicWrite(manifestUrl, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
