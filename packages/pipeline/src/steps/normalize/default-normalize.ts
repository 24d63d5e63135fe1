import { ExecutorStep, InputName, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import type { OutputName, VersionedValue } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { DEFAULT_MAX_WHITESPACE_RUN_CHARS } from './normalize-record.js';
import { normalizeToParquet } from './normalize.js';

/** Options of {@link defaultNormalize}. */
export interface DefaultNormalizeOptions {
  /** Field holding the text (versioned). @default "text" */
  textField?: string;
  /** Field holding the source id, kept as `source_id` (versioned). @default "id" */
  idField?: string;
  /** Input bytes per output partition (versioned). @default 256 MiB */
  targetPartitionBytes?: number;
  /** Longest whitespace run kept (versioned). @default 128 */
  maxWhitespaceRunChars?: number;
  /** `exact` or `none` (versioned). @default "exact" */
  dedupMode?: 'exact' | 'none';
  /** Keep only `id`, `text`, `source_id` (versioned). @default false */
  bare?: boolean;
  /** One Fray job per task; never versioned. @default null (in-process) */
  resources?: ResourceConfig | ResourceOptions | null;
  /** Tasks in flight. @default 4 */
  maxParallelism?: number;
}

/** The config of a step built by {@link defaultNormalize}, placeholders included. */
export interface DefaultNormalizeConfig {
  input_path: ExecutorStep | InputName;
  output_path: OutputName;
  text_field: VersionedValue<string>;
  id_field: VersionedValue<string>;
  target_partition_bytes: VersionedValue<number>;
  max_whitespace_run_chars: VersionedValue<number>;
  dedup_mode: VersionedValue<'exact' | 'none'>;
  bare: VersionedValue<boolean>;
  max_parallelism: number;
  resources: ResourceOptions | null;
}

/**
 * The normalize step `normalized/{name}` over `input` (a step, an input reference or a path): Marin's
 * datakit normalize with exact dedup. `text_field`, `id_field`, `target_partition_bytes`,
 * `max_whitespace_run_chars`, `dedup_mode` and `bare` are versioned, as is the input. Its normalized
 * partitions are at `outputPathOf(step, 'outputs/main')`.
 *
 * @example
 * const docs = defaultNormalize('fineweb-edu-sample', outputPathOf(raw, 'sample/10BT'));
 */
export function defaultNormalize(
  name: string,
  input: ExecutorStep | InputName | string,
  options: DefaultNormalizeOptions = {},
): ExecutorStep<DefaultNormalizeConfig> {
  const resources = options.resources ?? null;
  return new ExecutorStep<DefaultNormalizeConfig>({
    name: `normalized/${name}`,
    fn: async (config, ctx) => {
      await normalizeToParquet(config as unknown as Parameters<typeof normalizeToParquet>[0], ctx);
    },
    config: {
      input_path: typeof input === 'string' ? InputName.hardcoded(input) : input,
      output_path: THIS_OUTPUT_PATH,
      text_field: versioned(options.textField ?? 'text'),
      id_field: versioned(options.idField ?? 'id'),
      target_partition_bytes: versioned(options.targetPartitionBytes ?? 256 * 1024 * 1024),
      max_whitespace_run_chars: versioned(options.maxWhitespaceRunChars ?? DEFAULT_MAX_WHITESPACE_RUN_CHARS),
      dedup_mode: versioned(options.dedupMode ?? 'exact'),
      bare: versioned(options.bare ?? false),
      max_parallelism: options.maxParallelism ?? 4,
      resources: resources instanceof ResourceConfig ? resources.toOptions() : resources,
    },
  });
}
