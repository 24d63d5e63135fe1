import type { StepContext } from '@marin/executor';
import { FrayError, ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { atomicWrite, mapLimit, prefixJoin, rm, stat } from '@marin/rigging';
import { z } from 'zod';
import { partFileName } from '../../attributes/attribute-dataset.js';
import { runTasks, taskDoneUrl } from '../../dataflow/run-tasks.js';
import { shuffleFilesOf } from '../../dataflow/shuffle-writer.js';
import { PipelineError } from '../../errors.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import type { DatasetPart } from '../../formats/dataset-part.js';
import { listDatasetParts } from '../../formats/dataset-parts.js';
import { assertWritable } from '../writable-check.js';
import { DEFAULT_MAX_WHITESPACE_RUN_CHARS } from './normalize-record.js';
import { NORMALIZE_COUNTERS, normalizeMapTask } from './normalize-map.js';
import { outputColumns } from './output-columns.js';
import type { NormalizeMapArgs, NormalizeMapResult } from './normalize-map.js';
import { normalizeReduceTask } from './normalize-reduce.js';
import { normalizeSingleTask } from './normalize-single.js';
import type { NormalizeSingleArgs, NormalizeSingleResult } from './normalize-single.js';
import type { NormalizeReduceArgs, NormalizeReduceResult } from './normalize-reduce.js';

/** Config of the normalize step (Marin's `normalize_to_parquet` arguments, snake_case). */
export const NormalizeConfigSchema = z.strictObject({
  /** A directory (searched recursively), file or glob of parquet / JSON-lines (plain, .gz, .zst) files. */
  input_path: z.string().min(1),
  /** The step's output: `outputs/main/`, `outputs/dups/` and `.artifact` go here. */
  output_path: z.string().min(1),
  /** The field holding the text. @default "text" */
  text_field: z.string().min(1).default('text'),
  /** The field holding the source's own id, kept as `source_id`. @default "id" */
  id_field: z.string().min(1).default('id'),
  /** Input bytes per output partition: `max(1, floor(total input bytes / this))` partitions. @default 256 MiB */
  target_partition_bytes: z.number().int().positive().default(256 * 1024 * 1024),
  /** Whitespace runs longer than this are cut to this many characters. @default 128 */
  max_whitespace_run_chars: z.number().int().positive().default(DEFAULT_MAX_WHITESPACE_RUN_CHARS),
  /** `exact` moves every record whose `id` was already seen to `outputs/dups/`; `none` keeps all. @default "exact" */
  dedup_mode: z.enum(['exact', 'none']).default('exact'),
  /** Keep only `id`, `text` and `source_id`, dropping every other column. @default false */
  bare: z.boolean().default(false),
  /**
   * Compressed input bytes per map task (parts are row groups or JSON-lines files). An input that fits one
   * map task is normalized in one task, sorted in memory, with no shuffle files. @default 128 MiB
   */
  map_task_bytes: z.number().int().positive().default(128 * 1024 * 1024),
  /**
   * Buffered bytes per map (or single) task before sorted runs are spilled. The default keeps a full map
   * task of typical text (128 MiB of zstd parquet, ~350 MB of text) from spilling: its peak memory is the
   * same at 256 MiB, and a spill costs CPU (runs written and merged). @default 512 MiB
   */
  spill_bytes: z.number().int().positive().default(512 * 1024 * 1024),
  /** Row-group size of the outputs. @default 64 MiB */
  row_group_bytes: z.number().int().positive().default(64 * 1024 * 1024),
  /** Tasks in flight (in-process or Fray jobs). @default 4 */
  max_parallelism: z.number().int().positive().default(4),
  /** One Fray job per task with these resources; `null` runs in this process. Never versioned. @default null */
  resources: z.record(z.string(), z.unknown()).nullable().default(null),
});

/** What callers pass (defaults optional). */
export type NormalizeOptions = z.input<typeof NormalizeConfigSchema>;
/** The config with defaults applied. */
export type NormalizeConfig = z.output<typeof NormalizeConfigSchema>;

/** Marin's `NormalizedData`: written to `<output>/.artifact` when the step finishes. */
export interface NormalizedData {
  version: 'v1';
  main_output_dir: string;
  dup_output_dir: string;
  counters: Record<string, number>;
}

/** The file holding {@link NormalizedData}. */
export const NORMALIZED_DATA_FILE = '.artifact';

function parseConfig(options: NormalizeOptions): NormalizeConfig {
  const parsed = NormalizeConfigSchema.safeParse(options);
  if (!parsed.success) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid NormalizeConfig', { cause: parsed.error, details: { issues: parsed.error.issues } });
  }
  return parsed.data;
}

function resourcesOf(options: Record<string, unknown> | null): ResourceConfig | null {
  if (options === null) return null;
  try {
    return new ResourceConfig(options as ResourceOptions);
  } catch (cause) {
    if (!FrayError.is(cause)) throw cause;
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid NormalizeConfig.resources', { cause, details: { field: 'resources', ...cause.details } });
  }
}

/** Consecutive parts grouped into map tasks of about `bytes` compressed input each. */
function groupParts(parts: DatasetPart[], bytes: number): DatasetPart[][] {
  const groups: DatasetPart[][] = [];
  let current: DatasetPart[] = [];
  let size = 0;
  for (const p of parts) {
    if (current.length > 0 && size + p.bytes > bytes) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(p);
    size += p.bytes;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

function sumCounters(into: Record<string, number>, add: Record<string, number>): void {
  for (const [k, v] of Object.entries(add)) into[k] = (into[k] ?? 0) + v;
}

const mapTaskName = (i: number): string => `map-${String(i).padStart(5, '0')}`;

/**
 * Marin's datakit normalize: every record file under `input_path` → the standard schema (`id` =
 * xxh3-128 of the whitespace-compacted UTF-8 text, `text`, `source_id`, other columns unless `bare`),
 * blank texts dropped, exact duplicates (same `id`) moved to `outputs/dups/`, written as
 * `outputs/main/part-{shard:05d}-of-{total:05d}.parquet` partitions sorted by `id`; counters go to
 * `<output_path>/.artifact`. Map and reduce tasks record done markers under `<output_path>/.work/`,
 * so a rerun resumes with the unfinished tasks; the scratch directory is removed at the end. An input
 * that fits one map task runs as one task (`normalizeSingleTask`) with the same outputs and no shuffle.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID, PIPELINE_INPUT_NOT_FOUND, PIPELINE_OUTPUT_NOT_WRITABLE,
 *   PIPELINE_SCHEMA_MISMATCH (schema drift, missing text column), PIPELINE_INPUT_INVALID (corrupt input,
 *   non-string text, invalid UTF-8), PIPELINE_EMPTY_DATASET (no record with text)
 */
export async function normalizeToParquet(options: NormalizeOptions, ctx?: Pick<StepContext, 'signal'>): Promise<NormalizedData> {
  const config = parseConfig(options);
  const resources = resourcesOf(config.resources);
  const signal = ctx?.signal ?? new AbortController().signal;
  const parts = await listDatasetParts(config.input_path);
  await assertWritable(config.output_path);
  let totalBytes = 0;
  for (const url of new Set(parts.map((p) => p.url))) totalBytes += (await stat(url)).size;
  const numShards = Math.max(1, Math.floor(totalBytes / config.target_partition_bytes));
  const workDir = prefixJoin(config.output_path, '.work');
  const jobNamePrefix = `normalize-${prefixJoin(config.output_path, '').split('/').at(-1) ?? 'output'}`;
  const common = { maxParallelism: config.max_parallelism, signal, jobNamePrefix, workDir, resources };

  const groups = groupParts(parts, config.map_task_bytes);
  const mainDir = prefixJoin(config.output_path, 'outputs/main');
  const dupDir = prefixJoin(config.output_path, 'outputs/dups');
  const mapArgs = (group: DatasetPart[], name: string): Omit<NormalizeMapArgs, 'done_url'> => ({
    parts: group,
    shuffle_dir: prefixJoin(workDir, 'shuffle'),
    map_task: name,
    num_shards: numShards,
    text_field: config.text_field,
    id_field: config.id_field,
    max_whitespace_run_chars: config.max_whitespace_run_chars,
    bare: config.bare,
    spill_bytes: config.spill_bytes,
  });
  if (groups.length === 1) {
    // Everything fits one map task: map and reduce in one task, shards sorted in memory (spilling past
    // spill_bytes), no shuffle files to write and read back.
    const [single] = await runTasks<NormalizeSingleArgs, NormalizeSingleResult>({
      ...common,
      phase: 'single',
      task: normalizeSingleTask,
      exportName: 'normalizeSingleTask',
      tasks: [
        {
          name: 'single',
          args: {
            ...mapArgs(groups[0] ?? [], 'single'),
            input_path: config.input_path,
            main_dir: mainDir,
            dups_dir: dupDir,
            dedup_mode: config.dedup_mode,
            row_group_bytes: config.row_group_bytes,
          },
        },
      ],
    });
    return finish(config, workDir, { version: 'v1', main_output_dir: mainDir, dup_output_dir: dupDir, counters: single?.counters ?? {} });
  }
  const mapResults = await runTasks<NormalizeMapArgs, NormalizeMapResult>({
    ...common,
    phase: 'map',
    task: normalizeMapTask,
    exportName: 'normalizeMapTask',
    tasks: groups.map((group, i) => {
      const name = mapTaskName(i);
      return { name, args: mapArgs(group, name) };
    }),
  });
  const counters: Record<string, number> = {};
  for (const r of mapResults) sumCounters(counters, r.counters);
  // Errors found in the map tasks' recorded results: the tasks that read the offending files must read them
  // again after a fix, even one that leaves their sizes unchanged, so their markers go.
  const forgetMapTasks = (urls: ReadonlySet<string> | null): Promise<unknown> =>
    mapLimit(
      groups.flatMap((group, i) => (urls === null || group.some((p) => urls.has(p.url)) ? [i] : [])),
      16,
      (i) => rm(taskDoneUrl(workDir, 'map', mapTaskName(i)), { missingOk: true }),
    );
  if (mapResults.every((r) => r.shuffle.records === 0)) {
    await forgetMapTasks(null);
    throw new PipelineError(
      'PIPELINE_EMPTY_DATASET',
      `no record under ${config.input_path} has text in field ${JSON.stringify(config.text_field)} (${counters[NORMALIZE_COUNTERS.recordsIn] ?? 0} records read); check text_field`,
      { details: { path: config.input_path, column: config.text_field } },
    );
  }
  let columns: ParquetColumnSpec[];
  try {
    columns = outputColumns(mapResults.map((r) => r.columns));
  } catch (e) {
    if (PipelineError.is(e)) await forgetMapTasks(new Set([e.details['path'], e.details['other']].filter((u): u is string => typeof u === 'string')));
    throw e;
  }
  const reduceResults = await runTasks<NormalizeReduceArgs, NormalizeReduceResult>({
    ...common,
    phase: 'reduce',
    task: normalizeReduceTask,
    exportName: 'normalizeReduceTask',
    tasks: Array.from({ length: numShards }, (_, shard) => ({
      name: `reduce-${String(shard).padStart(5, '0')}`,
      args: {
        files: shuffleFilesOf(
          mapResults.map((r) => r.shuffle),
          shard,
        ),
        main_url: prefixJoin(mainDir, partFileName(shard, numShards)),
        dups_url: prefixJoin(dupDir, partFileName(shard, numShards)),
        // SchemaElement values are JSON (names, enums, numbers), though not typed as such
        columns: columns as NormalizeReduceArgs['columns'],
        dedup_mode: config.dedup_mode,
        row_group_bytes: config.row_group_bytes,
      },
    })),
  });
  for (const r of reduceResults) sumCounters(counters, r.counters);
  return finish(config, workDir, { version: 'v1', main_output_dir: mainDir, dup_output_dir: dupDir, counters });
}

/** Writes the step's artifact and removes its scratch directory. */
async function finish(config: NormalizeConfig, workDir: string, result: NormalizedData): Promise<NormalizedData> {
  await atomicWrite(prefixJoin(config.output_path, NORMALIZED_DATA_FILE), `${JSON.stringify(result, null, 2)}\n`);
  await rm(workDir, { recursive: true, missingOk: true });
  return result;
}
