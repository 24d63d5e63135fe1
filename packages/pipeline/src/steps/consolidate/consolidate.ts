import type { StepContext } from '@marin/executor';
import { FrayError, ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { atomicWrite, prefixJoin, rm } from '@marin/rigging';
import { z } from 'zod';
import { checkCoPartitioned, listPartFiles } from '../../attributes/attribute-dataset.js';
import { runTasks } from '../../dataflow/run-tasks.js';
import { PipelineError } from '../../errors.js';
import { columnSpecOf, kindOfParquetColumn } from '../../formats/column-kind.js';
import { openParquetFile } from '../../formats/parquet-file.js';
import { readParquetRecords } from '../../formats/parquet-records.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { assertWritable } from '../writable-check.js';
import { FilterConfigSchema, filterValue, keepFractionThreshold } from './consolidate-filter.js';
import type { FilterConfig } from './consolidate-filter.js';
import { consolidatePartTask } from './consolidate-part.js';
import type { ConsolidatePartArgs, ConsolidatePartResult, FilterCounts } from './consolidate-part.js';

/** Config of the consolidate step (Marin's `ConsolidateConfig`, over co-partitioned attribute datasets). */
export const ConsolidateConfigSchema = z.strictObject({
  /** The source dataset: a directory of `part-{i:05d}-of-{N:05d}.parquet` sorted by `id` (normalize's `outputs/main`). */
  input_path: z.string().min(1),
  /** Where the kept documents go, under the source's part names. */
  output_path: z.string().min(1),
  /** Applied in order; a document must pass all of them. */
  filters: z.array(FilterConfigSchema),
  /** Row-group size of the outputs. @default 64 MiB */
  row_group_bytes: z.number().int().positive().default(64 * 1024 * 1024),
  /** Parts in flight. @default 4 */
  max_parallelism: z.number().int().positive().default(4),
  /** One Fray job per part; `null` runs in this process. Never versioned. @default null */
  resources: z.record(z.string(), z.unknown()).nullable().default(null),
});

/** What callers pass. */
export type ConsolidateOptions = z.input<typeof ConsolidateConfigSchema>;
/** With defaults applied. */
export type ConsolidateConfig = z.output<typeof ConsolidateConfigSchema>;

/** What consolidate records in `<output_path>/.artifact`: counts per rule and the thresholds it used. */
export interface ConsolidateResult {
  version: 'v1';
  docs_in: number;
  docs_out: number;
  /** Per filter, in order: the resolved filter and the documents it rejected or had no attribute for. */
  filters: { filter: FilterConfig; rejected: number; missing: number }[];
}

function parseConfig(options: ConsolidateOptions): ConsolidateConfig {
  const parsed = ConsolidateConfigSchema.safeParse(options);
  if (!parsed.success) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid ConsolidateConfig', { cause: parsed.error, details: { issues: parsed.error.issues } });
  }
  for (const [i, f] of parsed.data.filters.entries()) {
    if (f.keep_fraction !== null && f.lower_threshold !== null) {
      throw new PipelineError('PIPELINE_CONFIG_INVALID', `filter ${i} (${f.name}) sets both keep_fraction and lower_threshold; set only one`, {
        details: { field: `filters.${i}` },
      });
    }
    if (f.keep_fraction !== null && f.type !== 'classify') {
      throw new PipelineError('PIPELINE_CONFIG_INVALID', `filter ${i} (${f.name}): keep_fraction applies to classify filters only`, { details: { field: `filters.${i}` } });
    }
  }
  return parsed.data;
}

function resourcesOf(options: Record<string, unknown> | null): ResourceConfig | null {
  if (options === null) return null;
  try {
    return new ResourceConfig(options as ResourceOptions);
  } catch (cause) {
    if (!FrayError.is(cause)) throw cause;
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid ConsolidateConfig.resources', { cause, details: { field: 'resources', ...cause.details } });
  }
}

/** Resolves `keep_fraction` to the exact dataset-wide threshold, reading only the attribute column. */
async function resolveKeepFraction(filter: FilterConfig, parts: string[], signal: AbortSignal): Promise<FilterConfig> {
  if (filter.keep_fraction === null) return filter;
  const values: number[] = [];
  for (const url of parts) {
    for await (const row of readParquetRecords(url, { columns: ['id', filter.name], signal })) {
      const v = filterValue(filter, row[filter.name], String(row['id']));
      if (typeof v === 'number' || typeof v === 'bigint') values.push(Number(v));
    }
  }
  return { ...filter, lower_threshold: keepFractionThreshold(Float64Array.from(values), filter.keep_fraction), keep_fraction: null };
}

/**
 * Consolidate: joins a normalized source with co-partitioned attribute datasets part by part (a sorted
 * merge on `id`, no shuffle) and writes the documents every filter keeps, under the source's part
 * names; counts per rule go to `<output_path>/.artifact`. Part tasks record done markers under
 * `<output_path>/.work/`, so a rerun resumes.
 *
 * @throws {PipelineError} PIPELINE_SCHEMA_MISMATCH when an attribute dataset's parts do not match the
 *   source's or it lacks the filter's column; PIPELINE_CONFIG_INVALID; PIPELINE_INPUT_INVALID for unsorted parts
 */
export async function consolidate(options: ConsolidateOptions, ctx?: Pick<StepContext, 'signal'>): Promise<ConsolidateResult> {
  const config = parseConfig(options);
  const resources = resourcesOf(config.resources);
  const signal = ctx?.signal ?? new AbortController().signal;
  const sources = await listPartFiles(config.input_path);
  let attributeParts: string[][];
  try {
    attributeParts = await checkCoPartitioned(
      config.input_path,
      config.filters.map((f) => f.attribute_path),
    );
  } catch (e) {
    if (!PipelineError.hasCode(e, 'PIPELINE_INPUT_INVALID') && !PipelineError.hasCode(e, 'PIPELINE_INPUT_NOT_FOUND')) throw e;
    throw new PipelineError('PIPELINE_SCHEMA_MISMATCH', e.message, { cause: e, details: e.details });
  }
  for (const [i, f] of config.filters.entries()) {
    await using first = await openParquetFile((attributeParts[i] ?? [])[0] ?? '');
    if (!first.columns.includes(f.name) || !first.columns.includes('id')) {
      throw new PipelineError('PIPELINE_SCHEMA_MISMATCH', `attribute dataset ${f.attribute_path} has no column ${JSON.stringify(f.name)} (its columns: ${first.columns.join(', ')})`, {
        details: { path: f.attribute_path, column: f.name },
      });
    }
  }
  await assertWritable(config.output_path);
  const filters: FilterConfig[] = [];
  for (const [i, f] of config.filters.entries()) filters.push(await resolveKeepFraction(f, attributeParts[i] ?? [], signal));
  let columns: ParquetColumnSpec[];
  {
    await using first = await openParquetFile(sources[0] ?? '');
    columns = first.schema.children.map((c) => columnSpecOf(c.element.name, kindOfParquetColumn(c)));
  }
  const workDir = prefixJoin(config.output_path, '.work');
  const results = await runTasks<ConsolidatePartArgs, ConsolidatePartResult>({
    phase: 'filter',
    workDir,
    task: consolidatePartTask,
    exportName: 'consolidatePartTask',
    resources,
    maxParallelism: config.max_parallelism,
    signal,
    jobNamePrefix: `consolidate-${prefixJoin(config.output_path, '').split('/').at(-1) ?? 'output'}`,
    tasks: sources.map((source, p) => {
      const name = source.slice(source.lastIndexOf('/') + 1);
      return {
        name: name.replace(/\.parquet$/, ''),
        args: {
          source_url: source,
          attribute_urls: attributeParts.map((parts) => parts[p] ?? ''),
          filters: filters as ConsolidatePartArgs['filters'],
          output_url: prefixJoin(config.output_path, name),
          columns: columns as ConsolidatePartArgs['columns'],
          row_group_bytes: config.row_group_bytes,
        },
      };
    }),
  });
  const result: ConsolidateResult = {
    version: 'v1',
    docs_in: results.reduce((n, r) => n + r.docs_in, 0),
    docs_out: results.reduce((n, r) => n + r.docs_out, 0),
    filters: filters.map((filter, i) => ({
      filter,
      rejected: results.reduce((n, r) => n + ((r.filters[i] as FilterCounts | undefined)?.rejected ?? 0), 0),
      missing: results.reduce((n, r) => n + ((r.filters[i] as FilterCounts | undefined)?.missing ?? 0), 0),
    })),
  };
  await atomicWrite(prefixJoin(config.output_path, '.artifact'), `${JSON.stringify(result, null, 2)}\n`);
  await rm(workDir, { recursive: true, missingOk: true });
  return result;
}
