import type { ResourceConfig, ResourceOptions } from '@marin/fray';
import { z } from 'zod';

const PositiveInt = z.number().int().positive();
const NonNegative = z.number().nonnegative().finite();

/**
 * Marin's `SimpleTrainConfig`: the hyperparameters of a training run, with Marin's field names.
 * `resources` and `env_vars` say where and how the job runs and never enter the step's version;
 * everything else does.
 */
export const SimpleTrainConfigSchema = z.strictObject({
  /**
   * Resources of the Levanter job: a Fray `ResourceConfig` or its options. On a cluster use
   * `ResourceConfig.withTpu(...)`; a CPU device trains on the CPU. @default one CPU, "16g" RAM
   */
  resources: z.record(z.string(), z.unknown()).optional(),
  train_batch_size: PositiveInt,
  num_train_steps: PositiveInt,
  learning_rate: z.number().positive().finite(),
  /** Training sequence length. @default the model's `max_seq_len` */
  train_seq_len: PositiveInt.nullable().default(null),
  /** Trainer seed (model init, dropout). @default 0 */
  seed: z.number().int().nonnegative().default(0),
  /** Seed of the data order. @default null (derived from `seed`) */
  data_seed: z.number().int().nonnegative().nullable().default(null),
  weight_decay: NonNegative.default(0.1),
  beta1: z.number().min(0).max(1).default(0.9),
  beta2: z.number().min(0).max(1).default(0.95),
  epsilon: z.number().positive().finite().default(1e-8),
  /** Global gradient-norm clip; `null` disables clipping. @default 1.0 */
  max_grad_norm: z.number().positive().finite().nullable().default(1.0),
  /** Warmup: a fraction of the steps when at most 1, else a whole number of steps (Levanter's rule). @default 0.01 */
  warmup: NonNegative.default(0.01),
  /** Decay: a fraction of the steps or a step count; `null` decays over the whole run after warmup. @default null */
  decay: NonNegative.nullable().default(null),
  lr_schedule: z.enum(['cosine', 'linear', 'constant', 'inv_sqrt', 'inv']).default('cosine'),
  min_lr_ratio: z.number().min(0).max(1).default(0.1),
  /** Weight of the z-loss term. @default 0 */
  z_loss_weight: NonNegative.default(0),
  /** Steps between evaluations on the validation split. @default 1000 */
  steps_per_eval: PositiveInt.default(1000),
  /** Steps between permanent checkpoints; `null` keeps only the final one. @default null */
  steps_per_export: PositiveInt.nullable().default(null),
  /** Steps between Hugging Face exports; `null` follows `steps_per_export`, `-1` turns them off. @default null */
  steps_per_hf_export: z.union([PositiveInt, z.literal(-1)]).nullable().default(null),
  /** Minutes between temporary checkpoints (overwritten, for resuming after preemption). @default 10 */
  checkpoint_minutes: z.number().positive().finite().default(10),
  /** Validation batches per evaluation; `null` evaluates the whole split. @default null */
  max_eval_batches: PositiveInt.nullable().default(null),
  /** A Levanter checkpoint (or a directory of them) to take the initial weights from. @default null */
  initialize_from_checkpoint_path: z.string().min(1).nullable().default(null),
  /** Mixed precision policy (`jmp`): parameters in f32, compute in bfloat16, as in Marin. @default "p=f32,c=bfloat16" */
  mp: z.string().min(1).default('p=f32,c=bfloat16'),
  /** Extra environment variables of the job; never versioned. @default {} */
  env_vars: z.record(z.string(), z.string()).default({}),
});

/** A `SimpleTrainConfig` as callers write it; `resources` may be a `ResourceConfig`. */
export type SimpleTrainConfig = Omit<z.input<typeof SimpleTrainConfigSchema>, 'resources'> & { resources?: ResourceConfig | ResourceOptions };
/** A validated `SimpleTrainConfig` with defaults applied. */
export type ResolvedSimpleTrainConfig = z.output<typeof SimpleTrainConfigSchema>;

/** The versioned part of a train config: everything but `resources` and `env_vars`. */
export type TrainHyperparameters = Omit<ResolvedSimpleTrainConfig, 'resources' | 'env_vars'>;

/** Fields of {@link TrainHyperparameters} that are floats in Marin (hashed as `1.0` when integral). */
export const FLOAT_HYPERPARAMETERS = ['learning_rate', 'weight_decay', 'beta1', 'beta2', 'epsilon', 'max_grad_norm', 'min_lr_ratio', 'z_loss_weight', 'checkpoint_minutes'] as const;
