import { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { LevanterModelConfigSchema } from './levanter-model-config.js';
import { MixtureDataSchema, checkMixtureData } from './mixture-data.js';
import { SimpleTrainConfigSchema } from './simple-train-config.js';

/** A training budget: tokens, or epochs over the training caches' tokens; steps follow from batch size × seq_len. */
export const TrainBudgetSchema = z.union([
  z.strictObject({ tokens: z.number().int().positive() }),
  z.strictObject({ epochs: z.number().positive().finite() }),
]);

/**
 * The config of the train step as it runs (every reference resolved to a path). `defaultTrain`
 * builds it; `model` and `train` are versioned, the rest is not.
 */
export const TrainStepConfigSchema = z.strictObject({
  /** The step's output directory: config, checkpoints, Hugging Face exports, logs, summary. */
  output_path: z.string().min(1),
  /**
   * The token cache (the tokenize step's output): `<cache_path>/train` and optionally `<cache_path>/validation`.
   * `null` when `data` gives a mixture instead.
   */
  cache_path: z.string().min(1).nullable().default(null),
  /** A mixture of caches with weights and validation sets, instead of `cache_path`. @default null */
  data: MixtureDataSchema.nullable().default(null),
  /** A Levanter checkpoint (or a directory of them) to start from; overrides `train.initialize_from_checkpoint_path`. @default null */
  init_from_checkpoint: z.string().min(1).nullable().default(null),
  /** A Hugging Face export (a directory, a directory of `step-N` exports, or a repo id) to take the initial weights from. @default null */
  initialize_from_hf: z.string().min(1).nullable().default(null),
  /** Train for this many tokens or epochs instead of `train.num_train_steps`. @default null */
  budget: TrainBudgetSchema.nullable().default(null),
  /** A shipped tokenizer's name, a directory with `tokenizer.json`, or a Hugging Face repo id. */
  tokenizer: z.string().min(1),
  /** The name of the cache in Levanter's data config; evaluation metrics are tagged with it. @default "train" */
  component_name: z.string().min(1).default('train'),
  /** Extra tags of the cache's evaluation metrics (and of the W&B run). @default [] */
  tags: z.array(z.string().min(1)).default([]),
  model: LevanterModelConfigSchema,
  /** The hyperparameters; `num_train_steps` may be `null` when `budget` sets the length. */
  train: SimpleTrainConfigSchema.omit({ resources: true, env_vars: true }).extend({ num_train_steps: z.number().int().positive().nullable() }),
  /** Fray resource options of the Levanter job. @default one CPU */
  resources: z.record(z.string(), z.unknown()).nullable().default(null),
  env_vars: z.record(z.string(), z.string()).default({}),
  /** W&B project, used when a W&B key is present. @default "marin" */
  wandb_project: z.string().min(1).default('marin'),
  /** The requirements lock of the job's Python environment. @default null (the package's `python/levanter.lock`) */
  python_lock: z.string().min(1).nullable().default(null),
  /** JAX's persistent compilation cache (a local path or bucket URL); `null` turns it off. @default null */
  compilation_cache_dir: z.string().min(1).nullable().default(null),
});

/** The resolved, validated config of the train step. */
export type TrainStepConfig = z.output<typeof TrainStepConfigSchema>;

/** A training budget: `{ tokens }` or `{ epochs }`. */
export type TrainBudget = z.output<typeof TrainBudgetSchema>;

/**
 * Validates the train step's config.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID naming the first bad field; zod's issues in `details.issues`
 */
export function parseTrainStepConfig(raw: unknown): TrainStepConfig {
  const parsed = TrainStepConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const field = first?.path.join('.') ?? '';
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid train config${field === '' ? '' : ` field "${field}"`}: ${first?.message ?? 'invalid'}`, {
      cause: parsed.error,
      details: { field, issues: parsed.error.issues },
    });
  }
  const config = parsed.data;
  if (config.init_from_checkpoint !== null) config.train.initialize_from_checkpoint_path = config.init_from_checkpoint;
  if (config.init_from_checkpoint !== null && config.initialize_from_hf !== null) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'init_from is either a Levanter checkpoint or a Hugging Face export, not both', { details: { field: 'init_from' } });
  }
  if ((config.cache_path === null) === (config.data === null)) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'a train config needs exactly one of cache_path (one token cache) and data (a mixture)', { details: { field: 'data' } });
  }
  if ((config.train.num_train_steps === null) === (config.budget === null)) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'a train config needs exactly one of train.num_train_steps and budget', { details: { field: 'budget' } });
  }
  if (config.data !== null) checkMixtureData(config.data, config.train.train_batch_size);
  const seqLen = config.train.train_seq_len;
  if (seqLen !== null && seqLen > config.model.max_seq_len) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `train_seq_len ${seqLen} exceeds the model's max_seq_len ${config.model.max_seq_len}; lower it or raise max_seq_len`, {
      details: { field: 'train.train_seq_len' },
    });
  }
  return config;
}
