import { ExecutorStep, InputName, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import type { OutputName, VersionedValue } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { PipelineError } from '../../errors.js';
import { FilterConfigSchema } from './consolidate-filter.js';
import type { FilterConfig, FilterOptions } from './consolidate-filter.js';
import { consolidate } from './consolidate.js';

/** A filter of {@link defaultConsolidate}: its attribute dataset may be a step, a reference into one or a path. */
export type ConsolidateFilterInput = Omit<FilterOptions, 'attribute_path'> & { attribute_path: ExecutorStep | InputName | string };

/** Options of {@link defaultConsolidate}. */
export interface DefaultConsolidateOptions {
  /** One Fray job per part; never versioned. @default null */
  resources?: ResourceConfig | ResourceOptions | null;
  /** Parts in flight. @default 4 */
  maxParallelism?: number;
}

/** The config of a step built by {@link defaultConsolidate}. */
export interface DefaultConsolidateConfig {
  input_path: ExecutorStep | InputName;
  output_path: OutputName;
  filters: (Omit<FilterConfig, 'attribute_path'> & { attribute_path: ExecutorStep | InputName })[];
  versioned_rules: VersionedValue<Omit<FilterConfig, 'attribute_path'>[]>;
  max_parallelism: number;
  resources: ResourceOptions | null;
}

const asInput = (x: ExecutorStep | InputName | string): ExecutorStep | InputName => (typeof x === 'string' ? InputName.hardcoded(x) : x);

/**
 * The consolidate step `filtered/{name}`: keeps the documents of `input` (a normalized dataset's
 * `outputs/main`) that pass every filter, judged by co-partitioned attribute datasets. The rules
 * (everything but the attribute paths, which are dependencies) are versioned.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for an invalid filter
 *
 * @example
 * const kept = defaultConsolidate('fineweb-hq', outputPathOf(norm, 'outputs/main'), [
 *   { type: 'classify', attribute_path: quality, name: 'quality_score', keep_fraction: 0.5 },
 *   { type: 'remove_docs', attribute_path: dedup, name: 'duplicate' },
 * ]);
 */
export function defaultConsolidate(
  name: string,
  input: ExecutorStep | InputName | string,
  filters: ConsolidateFilterInput[],
  options: DefaultConsolidateOptions = {},
): ExecutorStep<DefaultConsolidateConfig> {
  const resources = options.resources ?? null;
  const resolved = filters.map((f, i) => {
    const parsed = FilterConfigSchema.safeParse({ ...f, attribute_path: 'placeholder' });
    if (!parsed.success) {
      throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid consolidate filter ${i}`, { cause: parsed.error, details: { field: `filters.${i}`, issues: parsed.error.issues } });
    }
    return { ...parsed.data, attribute_path: asInput(f.attribute_path) };
  });
  return new ExecutorStep<DefaultConsolidateConfig>({
    name: `filtered/${name}`,
    fn: async (config, ctx) => {
      const { versioned_rules: _rules, ...rest } = config as unknown as Record<string, unknown>;
      await consolidate(rest as unknown as Parameters<typeof consolidate>[0], ctx);
    },
    config: {
      input_path: asInput(input),
      output_path: THIS_OUTPUT_PATH,
      filters: resolved,
      versioned_rules: versioned(resolved.map(({ attribute_path: _p, ...rule }) => rule)),
      max_parallelism: options.maxParallelism ?? 4,
      resources: resources instanceof ResourceConfig ? resources.toOptions() : resources,
    },
  });
}
