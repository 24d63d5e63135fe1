import type { StepContext } from '@marin/executor';
import { FrayError, ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { RiggingError, exists, glob, prefixJoin } from '@marin/rigging';
import { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { RECORD_FILE_EXTENSIONS } from '../../formats/input-format.js';
import { runParts } from '../../fanout/run-parts.js';
import type { PartSpec } from '../../fanout/run-parts.js';
import { MarkdownConfigSchema } from './html-to-markdown.js';
import { shardName } from './shard-name.js';
import { transformShards } from './transform-shards.js';
import type { TransformShardsArgs } from './transform-shards.js';
import { assertWritable } from '../writable-check.js';

/** Config of the HTML → Markdown step (Marin's `HtmlToMdConfig`, snake_case field names). */
export const HtmlToMdConfigSchema = z.strictObject({
  /** Directory of Dolma record files (`.jsonl.gz`, `.jsonl`, `.jsonl.zst`, `.parquet`) with HTML in `text`; searched recursively, dot-files skipped. */
  input_path: z.string().min(1),
  /** Where the Markdown shards go (the step's own output path). */
  output_path: z.string().min(1),
  /** How the main content is found. @default "readability" */
  extract_method: z.literal('readability').default('readability'),
  /** How Markdown is written. @default every field's default */
  config: MarkdownConfigSchema.prefault({}),
  /** Shards converted at once in this process, or Fray jobs submitted at once. @default 4 */
  max_parallelism: z.number().int().positive().default(4),
  /**
   * Resources of one Fray job per group of shards (plain `ResourceOptions` JSON); `null` converts
   * every shard in this process. Never versioned. @default null
   */
  resources: z.record(z.string(), z.unknown()).nullable().default(null),
  /** Shards per Fray job (or per in-process task). @default 1 */
  shards_per_job: z.number().int().positive().default(1),
});

/** What callers put in the step config (every defaulted field optional). */
export type HtmlToMdOptions = z.input<typeof HtmlToMdConfigSchema>;
/** The step config with defaults applied. */
export type HtmlToMdConfig = z.output<typeof HtmlToMdConfigSchema>;

/** The export of `@marin/pipeline` that a Fray job of this step calls. */
const WORKER_EXPORT = 'transformShards';

/**
 * The HTML → Markdown step (Marin's `html_to_md`): every record file under `<input_path>` (`.jsonl.gz`,
 * `.jsonl`, `.jsonl.zst`, `.parquet`, …), sorted, becomes
 * `<output_path>/data-{i:05d}-of-{N:05d}.jsonl.gz` with `{ id, source, format: "md", metadata, text }`
 * records in input order. Existing output shards are skipped, so a rerun resumes. Groups of
 * `shards_per_job` shards run in this process (`resources: null`) or as one Fray job each.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for a config that fails validation (`details.issues`) or bad `resources`
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND when no record file is under `input_path`
 * @throws {PipelineError} PIPELINE_OUTPUT_NOT_WRITABLE when `output_path` cannot be written
 * @throws {PipelineError} PIPELINE_INPUT_INVALID for a malformed input file (see {@link transformShards})
 */
export async function htmlToMd(options: HtmlToMdOptions, ctx?: Pick<StepContext, 'signal'>): Promise<void> {
  const config = parseConfig(options);
  const signal = ctx?.signal ?? new AbortController().signal;
  const inputs = await findInputs(config.input_path);
  if (inputs.length === 0) {
    throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `no record files (.jsonl.gz, .jsonl, .jsonl.zst, .parquet) under "${config.input_path}"`, {
      details: { path: config.input_path },
    });
  }
  await assertWritable(config.output_path);
  const pending: { index: number; input: string; output: string }[] = [];
  for (const [index, input] of inputs.entries()) {
    signal.throwIfAborted();
    const output = prefixJoin(config.output_path, shardName(index, inputs.length));
    if (!(await exists(output))) pending.push({ index, input, output });
  }
  const parts: PartSpec<TransformShardsArgs>[] = [];
  for (let i = 0; i < pending.length; i += config.shards_per_job) {
    const group = pending.slice(i, i + config.shards_per_job);
    parts.push({
      name: `part-${String(group[0]?.index ?? 0).padStart(5, '0')}`,
      args: {
        shards: group.map(({ input, output }) => ({ input, output })),
        extract_method: config.extract_method,
        config: config.config,
      },
    });
  }
  await runParts({
    parts,
    run: transformShards,
    exportName: WORKER_EXPORT,
    resources: config.resources === null ? null : resourcesOf(config.resources),
    maxParallelism: config.max_parallelism,
    signal,
    jobNamePrefix: `html-to-md-${baseName(config.output_path)}`,
  });
}

function parseConfig(options: HtmlToMdOptions): HtmlToMdConfig {
  const parsed = HtmlToMdConfigSchema.safeParse(options);
  if (!parsed.success) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid HtmlToMdConfig', {
      cause: parsed.error,
      details: { issues: parsed.error.issues },
    });
  }
  return parsed.data;
}

/** Validated before any work, so a typo fails the step instead of the first job submission. */
function resourcesOf(options: Record<string, unknown>): ResourceConfig {
  try {
    return new ResourceConfig(options as ResourceOptions);
  } catch (cause) {
    if (!FrayError.is(cause)) throw cause;
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid HtmlToMdConfig.resources', {
      cause,
      details: { field: 'resources', ...cause.details },
    });
  }
}

/** Sorted record files under `dir`, at any depth, without dot-files or files in dot-directories. */
async function findInputs(dir: string): Promise<string[]> {
  const root = prefixJoin(dir, '');
  let found: string[];
  try {
    found = await glob(prefixJoin(root, `**/*.{${RECORD_FILE_EXTENSIONS.join(',')}}`));
  } catch (err) {
    if (RiggingError.hasCode(err, 'RIGGING_NOT_FOUND')) return [];
    throw err;
  }
  return found.filter((url) => !url.slice(root.length).split('/').some((segment) => segment.startsWith('.')));
}

function baseName(path: string): string {
  return prefixJoin(path, '').split('/').at(-1) ?? 'output';
}
