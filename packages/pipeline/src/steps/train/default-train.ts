import { ExecutorStep, InputName, THIS_OUTPUT_PATH, VersionedValue, float, versioned } from '@marin/executor';
import type { FloatValue, OutputName } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { LevanterModelConfigSchema } from './levanter-model-config.js';
import type { LevanterModelConfig } from './levanter-model-config.js';
import { FLOAT_HYPERPARAMETERS, SimpleTrainConfigSchema } from './simple-train-config.js';
import type { SimpleTrainConfig } from './simple-train-config.js';
import { defaultValidationSets } from '../validation/validation-sets.js';
import { checkMixtureData, mixtureStepData } from './mixture-data.js';
import type { MixtureStepData } from './mixture-data.js';
import { LmMixture, singleSourceMixture } from './mixture.js';
import { componentNameOf, describeSource, tokenizerKey, tokenizerOf } from './tokenized-source.js';
import type { TokenizedSource, TokenizerRef } from './tokenized-source.js';
import { trainLevanter } from './train.js';

export type { TokenizedSource } from './tokenized-source.js';

/** What a run trains on: one token cache (its tokenize step, a reference into a step, or a path/URL) or a {@link LmMixture}. */
export type TrainData = TokenizedSource | LmMixture;

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
  /**
   * Add the default validation sets ({@link defaultValidationSets} for the run's tokenizer) as validation-only
   * components: `true` for Marin's suite (Paloma, from the hub), or a suite's name (`"offline"`: the shipped
   * one). Marin's default is on; here it is off, since Paloma needs the hub. @default false
   */
  useDefaultValidation?: boolean | string;
  /** More validation-only components by name (tokenize steps of validation documents). @default {} */
  validationSets?: Readonly<Record<string, TokenizedSource>>;
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
  /** The one token cache, or `null` when `data` holds a mixture. */
  cache_path: TokenizedSource | null;
  /** A mixture (present only for one, so a single cache keeps its version). */
  data?: MixtureStepData;
  budget?: TrainStepExtras['budget'];
  init_from_checkpoint?: TrainStepExtras['init_from_checkpoint'];
  initialize_from_hf?: TrainStepExtras['initialize_from_hf'];
  tokenizer: VersionedValue<string> | ExecutorStep | InputName | string;
  component_name?: string;
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
 * `tokenized` may be a {@link mixture}; validation sets (`useDefaultValidation`, `validationSets`) turn a
 * single cache into a mixture of it (weight 1) and the sets (weight 0).
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for an invalid model or train config (zod issues in
 *   `details.issues`), or when no tokenizer can be found; PIPELINE_MIXTURE_INVALID for validation sets of
 *   another tokenizer, caches built for another `seq_len` than the run's, or weight stages that do not start
 *   on a mixing block
 */
export function defaultTrain(
  name: string,
  tokenized: TrainData,
  modelConfig: LevanterModelConfig,
  trainConfig: SimpleTrainConfig,
  options: DefaultTrainOptions = {},
): ExecutorStep<DefaultTrainConfig> {
  return buildTrainStep(name, tokenized, modelConfig, trainConfig, options);
}

/** What `trainLm` adds to a train step's config beyond `defaultTrain`'s (each key only when set, so other versions stay). */
export interface TrainStepExtras {
  /** A token or epoch budget instead of `num_train_steps`. */
  budget?: VersionedValue<unknown>;
  /** The Levanter checkpoint (directory of `step-N`) to start from. */
  init_from_checkpoint?: ExecutorStep | InputName | VersionedValue<string>;
  /** The Hugging Face export to start from. */
  initialize_from_hf?: ExecutorStep | InputName | VersionedValue<string>;
}

const BudgetedTrainConfigSchema = SimpleTrainConfigSchema.extend({ num_train_steps: z.number().int().positive().nullable() });

/**
 * The train step of `defaultTrain` and `trainLm`: validates the model, the hyperparameters and the data
 * (mixture checks included) and builds the step config.
 * @internal
 */
export function buildTrainStep(
  name: string,
  tokenized: TrainData,
  modelConfig: LevanterModelConfig,
  trainConfig: Omit<SimpleTrainConfig, 'num_train_steps'> & { num_train_steps: number | null },
  options: DefaultTrainOptions,
  extras: TrainStepExtras = {},
): ExecutorStep<DefaultTrainConfig> {
  const { resources, ...rest } = trainConfig;
  const model = parseOrThrow(LevanterModelConfigSchema, modelConfig, 'model config');
  const train = parseOrThrow(extras.budget === undefined ? SimpleTrainConfigSchema : BudgetedTrainConfigSchema, rest, 'train config');
  const { env_vars: envVars, resources: _ignored, ...hyper } = train;
  const data = trainData(name, tokenized, options);
  const tags = options.tags ?? [];
  const tokenizer = data.tokenizer;
  const seqLen = hyper.train_seq_len ?? model.max_seq_len;
  const mixed = data instanceof LmMixture ? data : null;
  if (mixed !== null) {
    if (mixed.seqLen !== null && mixed.seqLen !== seqLen) {
      throw new PipelineError('PIPELINE_MIXTURE_INVALID', `defaultTrain("${name}") trains at seq_len ${seqLen} but its caches were built for seq_len ${mixed.seqLen}`, {
        details: { field: 'seq_len', seq_len: seqLen, cache_seq_len: mixed.seqLen },
      });
    }
    const stepData = mixtureStepData(mixed, tags);
    checkMixtureData(
      {
        components: Object.fromEntries(Object.keys(mixed.components).map((n) => [n, { cache_path: n, tags: [] }])),
        train_weights: mixed.stages.length === 1 ? { ...mixed.stages[0]?.[1] } : mixed.stages.map(([s, w]): [number, Record<string, number>] => [s, { ...w }]),
        shuffle: null,
        permutation_type: null,
        mixture_block_size: mixed.mixtureBlockSize,
        stop_strategy: null,
      },
      hyper.train_batch_size,
    );
    return trainStep(name, options, {
      cache_path: null,
      data: stepData,
      tokenizer: typeof tokenizer === 'string' ? versioned(tokenizer) : tokenizer,
      tags: versioned(tags),
      model: versioned(withFloats(model, ['initializer_range', 'layer_norm_epsilon'])),
      train: versioned(withFloats(hyper, FLOAT_HYPERPARAMETERS)),
      resources: resourceOptions(resources),
      env_vars: envVars,
      ...extras,
    });
  }
  return trainStep(name, options, {
    cache_path: tokenized as TokenizedSource,
    tokenizer: typeof tokenizer === 'string' ? versioned(tokenizer) : tokenizer,
    component_name: options.componentName ?? componentNameOf(tokenized as TokenizedSource),
    tags: versioned(tags),
    model: versioned(withFloats(model, ['initializer_range', 'layer_norm_epsilon'])),
    train: versioned(withFloats(hyper, FLOAT_HYPERPARAMETERS)),
    resources: resourceOptions(resources),
    env_vars: envVars,
    ...extras,
  });
}

/** The run's data: the one cache with its tokenizer, or a mixture (validation sets make one). */
function trainData(name: string, tokenized: TrainData, options: DefaultTrainOptions): LmMixture | { tokenizer: TokenizerRef } {
  const extra = { ...(options.validationSets ?? {}) };
  if (tokenized instanceof LmMixture) {
    if (options.tokenizer !== undefined && tokenizerKey(options.tokenizer) !== tokenizerKey(tokenized.tokenizer)) {
      throw new PipelineError('PIPELINE_MIXTURE_INVALID', `defaultTrain("${name}") was given tokenizer ${tokenizerKey(options.tokenizer)} but its mixture uses ${tokenizerKey(tokenized.tokenizer)}`, {
        details: { field: 'tokenizer' },
      });
    }
    return withValidation(tokenized, extra, options.useDefaultValidation ?? false);
  }
  const tokenizer = options.tokenizer ?? tokenizerOf(tokenized);
  if (tokenizer === undefined) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `defaultTrain("${name}") cannot tell the tokenizer of ${describeSource(tokenized)}; pass options.tokenizer`, {
      details: { field: 'tokenizer' },
    });
  }
  if (Object.keys(extra).length === 0 && (options.useDefaultValidation ?? false) === false) return { tokenizer };
  const single = singleSourceMixture(tokenized, options.componentName ?? componentNameOf(tokenized), tokenizer);
  return withValidation(single, extra, options.useDefaultValidation ?? false);
}

function withValidation(m: LmMixture, extra: Record<string, TokenizedSource>, useDefault: boolean | string): LmMixture {
  const sets = useDefault === false ? {} : defaultValidationSets(m.tokenizer, { suite: useDefault === true ? 'paloma' : useDefault });
  return m.withValidation({ ...sets, ...extra });
}

function trainStep(
  name: string,
  options: DefaultTrainOptions,
  config: Omit<DefaultTrainConfig, 'output_path' | 'wandb_project' | 'compilation_cache_dir' | 'python_lock'>,
): ExecutorStep<DefaultTrainConfig> {
  return new ExecutorStep<DefaultTrainConfig>({
    name: `checkpoints/${name}`,
    fn: trainLevanter,
    overrideOutputPath: options.overrideOutputPath ?? null,
    config: {
      output_path: THIS_OUTPUT_PATH,
      ...config,
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
