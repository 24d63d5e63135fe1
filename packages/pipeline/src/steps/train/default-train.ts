import { ExecutorStep, InputName, THIS_OUTPUT_PATH, VersionedValue, float, versioned } from '@marin/executor';
import type { FloatValue, OutputName } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import type { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { LevanterModelConfigSchema } from './levanter-model-config.js';
import type { LevanterModelConfig } from './levanter-model-config.js';
import { FLOAT_HYPERPARAMETERS, SimpleTrainConfigSchema } from './simple-train-config.js';
import type { SimpleTrainConfig } from './simple-train-config.js';
import { trainLevanter } from './train.js';

/** Where the token cache comes from: the tokenize step, a reference into a step, or a path/URL. */
export type TokenizedSource = ExecutorStep | InputName | string;

/** Options of {@link defaultTrain}. */
export interface DefaultTrainOptions {
  /** Tags of the cache's evaluation metrics and of the W&B run (versioned). @default [] */
  tags?: string[];
  /** Pin the output path (never changes the hash). @default null */
  overrideOutputPath?: string | null;
  /**
   * The tokenizer: a shipped tokenizer's name, a directory, a repo id, or a step that downloaded one.
   * @default the `tokenizer` of the tokenize step's config (required when `tokenized` is not such a step)
   */
  tokenizer?: string | ExecutorStep | InputName;
  /** Name of the cache in Levanter's data config; evaluation metrics are tagged with it. @default the basename of the tokenize step's name (or path) */
  componentName?: string;
  /** W&B project when a W&B key is present. @default "marin" */
  wandbProject?: string;
  /** JAX's persistent compilation cache, shared by runs (a local path or bucket URL); not versioned. @default null (off) */
  compilationCacheDir?: string | null;
  /** The requirements lock of the job's Python environment; not versioned. @default the package's `python/levanter.lock` */
  pythonLock?: string | null;
}

/** The config `defaultTrain` builds; the step resolves it to a `TrainStepConfig`. */
export interface DefaultTrainConfig {
  output_path: OutputName;
  cache_path: TokenizedSource;
  tokenizer: VersionedValue<string> | ExecutorStep | InputName | string;
  component_name: string;
  tags: VersionedValue<string[]>;
  model: VersionedValue<Record<string, unknown>>;
  train: VersionedValue<Record<string, unknown>>;
  resources: ResourceOptions | null;
  env_vars: Record<string, string>;
  wandb_project: string;
  compilation_cache_dir: string | null;
  python_lock: string | null;
}

/**
 * A step `checkpoints/{name}` that trains `modelConfig` on the tokenize step's cache with real Levanter,
 * as a Fray job with `trainConfig.resources` (CPU locally; `ResourceConfig.withTpu(...)` on a cluster).
 * The model config and every hyperparameter are versioned; resources, environment variables and the
 * compilation cache are not. The step itself runs in the executor's process and only submits and
 * watches the Levanter job, so it has no `resources` of its own.
 *
 * @example
 * const tokens = defaultTokenize('quickstart', docs, 'marin-tiny-bpe', { validation: docsVal });
 * const model = defaultTrain('quickstart', tokens, { ...llama_nano, max_seq_len: 64 },
 *   { train_batch_size: 8, num_train_steps: 20, learning_rate: 3e-3, steps_per_eval: 10 });
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for an invalid model or train config (zod issues in
 *   `details.issues`), or when no tokenizer can be found
 */
export function defaultTrain(
  name: string,
  tokenized: TokenizedSource,
  modelConfig: LevanterModelConfig,
  trainConfig: SimpleTrainConfig,
  options: DefaultTrainOptions = {},
): ExecutorStep<DefaultTrainConfig> {
  const { resources, ...rest } = trainConfig;
  const model = parseOrThrow(LevanterModelConfigSchema, modelConfig, 'model config');
  const train = parseOrThrow(SimpleTrainConfigSchema, rest, 'train config');
  const { env_vars: envVars, resources: _ignored, ...hyper } = train;
  const tokenizer = options.tokenizer ?? tokenizerOf(tokenized);
  if (tokenizer === undefined) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `defaultTrain("${name}") cannot tell the tokenizer of ${describe(tokenized)}; pass options.tokenizer`, {
      details: { field: 'tokenizer' },
    });
  }
  return new ExecutorStep<DefaultTrainConfig>({
    name: `checkpoints/${name}`,
    fn: trainLevanter,
    overrideOutputPath: options.overrideOutputPath ?? null,
    config: {
      output_path: THIS_OUTPUT_PATH,
      cache_path: tokenized,
      tokenizer: typeof tokenizer === 'string' ? versioned(tokenizer) : tokenizer,
      component_name: options.componentName ?? componentNameOf(tokenized),
      tags: versioned(options.tags ?? []),
      model: versioned(withFloats(model, ['initializer_range', 'layer_norm_epsilon'])),
      train: versioned(withFloats(hyper, FLOAT_HYPERPARAMETERS)),
      resources: resourceOptions(resources),
      env_vars: envVars,
      wandb_project: options.wandbProject ?? 'marin',
      compilation_cache_dir: options.compilationCacheDir ?? null,
      python_lock: options.pythonLock ?? null,
    },
  });
}

function parseOrThrow<TSchema extends z.ZodType>(schema: TSchema, value: unknown, what: string): z.output<TSchema> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const field = first?.path.join('.') ?? '';
  throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid ${what}${field === '' ? '' : ` field "${field}"`}: ${first?.message ?? 'invalid'}`, {
    cause: parsed.error,
    details: { field, issues: parsed.error.issues },
  });
}

/** Marks integral values of float fields, so they hash as Python floats (`1.0`), as in Marin. */
function withFloats<T extends object>(obj: T, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(obj as Record<string, unknown>) };
  for (const key of keys) {
    const v = out[key];
    if (typeof v === 'number' && Number.isInteger(v)) out[key] = float(v) as FloatValue;
  }
  return out;
}

function resourceOptions(resources: ResourceConfig | ResourceOptions | undefined): ResourceOptions | null {
  if (resources === undefined) return null;
  return (resources instanceof ResourceConfig ? resources : new ResourceConfig(resources)).toOptions();
}

function stepOf(source: TokenizedSource): ExecutorStep | null {
  if (source instanceof ExecutorStep) return source;
  if (source instanceof InputName) return source.step ?? null;
  return null;
}

function tokenizerOf(source: TokenizedSource): string | ExecutorStep | InputName | undefined {
  const config = stepOf(source)?.config;
  if (typeof config !== 'object' || config === null || !('tokenizer' in config)) return undefined;
  const tokenizer = (config as { tokenizer: unknown }).tokenizer;
  if (typeof tokenizer === 'string' || tokenizer instanceof ExecutorStep || tokenizer instanceof InputName) return tokenizer;
  // A versioned name (what defaultTokenize writes) is versioned again here, with the same value.
  if (tokenizer instanceof VersionedValue && typeof tokenizer.value === 'string') return tokenizer.value;
  return undefined;
}

function componentNameOf(source: TokenizedSource): string {
  const step = stepOf(source);
  const label = step !== null ? step.name : (source as string);
  const parts = label.replace(/\/+$/, '').split('/');
  return parts[parts.length - 1] || 'train';
}

function describe(source: TokenizedSource): string {
  const step = stepOf(source);
  return step !== null ? `step "${step.name}"` : `"${String(source)}"`;
}
