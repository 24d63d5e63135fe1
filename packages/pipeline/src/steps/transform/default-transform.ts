import { ExecutorStep, InputName, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import type { OutputName, VersionedValue } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { parseMarkdownConfig } from './html-to-markdown.js';
import type { MarkdownConfig, MarkdownOptions } from './html-to-markdown.js';
import { htmlToMd } from './transform.js';

/** Options of {@link defaultTransform}. */
export interface DefaultTransformOptions {
  /** How the main content is found (versioned). @default "readability" */
  extractMethod?: 'readability';
  /** How Markdown is written (versioned, with every default filled in). @default {} */
  config?: MarkdownOptions;
  /** One Fray job per group of shards with these resources; never versioned. @default null (in-process) */
  resources?: ResourceConfig | ResourceOptions | null;
  /** Shards in flight at once (in-process) or jobs submitted at once. @default 4 */
  maxParallelism?: number;
  /** Shards per Fray job. @default 1 */
  shardsPerJob?: number;
}

/** The config of a step built by {@link defaultTransform}, placeholders included. */
export interface DefaultTransformConfig {
  input_path: ExecutorStep | InputName;
  output_path: OutputName;
  extract_method: VersionedValue<'readability'>;
  config: VersionedValue<MarkdownConfig>;
  max_parallelism: number;
  resources: ResourceOptions | null;
  shards_per_job: number;
}

/**
 * The HTML → Markdown step `documents/{name}` over `input`: a step (its whole output), an input
 * reference such as `outputPathOf(raw, 'train')`, or a path (prefix-relative or a URL). Only
 * `extract_method`, `config` and the input enter the version hash; resources and parallelism never do.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for invalid `config` options
 *
 * @example
 * const docs = defaultTransform('quickstart-train', outputPathOf(raw, 'train'));
 */
export function defaultTransform(
  name: string,
  input: ExecutorStep | InputName | string,
  options: DefaultTransformOptions = {},
): ExecutorStep<DefaultTransformConfig> {
  const resources = options.resources ?? null;
  return new ExecutorStep<DefaultTransformConfig>({
    name: `documents/${name}`,
    fn: htmlToMd,
    config: {
      input_path: typeof input === 'string' ? InputName.hardcoded(input) : input,
      output_path: THIS_OUTPUT_PATH,
      extract_method: versioned(options.extractMethod ?? 'readability'),
      config: versioned(parseMarkdownConfig(options.config ?? {})),
      max_parallelism: options.maxParallelism ?? 4,
      // Plain JSON, so the config can be written to `.executor_info` and shipped to a remote step.
      resources: resources instanceof ResourceConfig ? resources.toOptions() : resources,
      shards_per_job: options.shardsPerJob ?? 1,
    },
  });
}
