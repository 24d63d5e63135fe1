import { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { LevanterModelConfigSchema } from './levanter-model-config.js';
import { SimpleTrainConfigSchema } from './simple-train-config.js';

/**
 * The config of the train step as it runs (every reference resolved to a path). `defaultTrain`
 * builds it; `model` and `train` are versioned, the rest is not.
 */
export const TrainStepConfigSchema = z.strictObject({
  /** The step's output directory: config, checkpoints, Hugging Face exports, logs, summary. */
  output_path: z.string().min(1),
  /** The token cache (the tokenize step's output): `<cache_path>/train` and optionally `<cache_path>/validation`. */
  cache_path: z.string().min(1),
  /** A shipped tokenizer's name, a directory with `tokenizer.json`, or a Hugging Face repo id. */
  tokenizer: z.string().min(1),
  /** The name of the cache in Levanter's data config; evaluation metrics are tagged with it. */
  component_name: z.string().min(1),
  /** Extra tags of the cache's evaluation metrics (and of the W&B run). @default [] */
  tags: z.array(z.string().min(1)).default([]),
  model: LevanterModelConfigSchema,
  train: SimpleTrainConfigSchema.omit({ resources: true, env_vars: true }),
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
  const seqLen = config.train.train_seq_len;
  if (seqLen !== null && seqLen > config.model.max_seq_len) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `train_seq_len ${seqLen} exceeds the model's max_seq_len ${config.model.max_seq_len}; lower it or raise max_seq_len`, {
      details: { field: 'train.train_seq_len' },
    });
  }
  return config;
}
