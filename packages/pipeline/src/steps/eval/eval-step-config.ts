import { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { LevanterModelConfigSchema } from '../train/levanter-model-config.js';

/** One lm-eval task to run: Marin's `EvalTaskConfig`. */
export const EvalTaskConfigSchema = z.strictObject({
  /**
   * A shipped multiple-choice task (`tiny_mc`), a local JSONL file of `{ "query", "choices", "gold" }`
   * records (absolute path), or a task registered in lm-eval (needs the hub for its data).
   */
  name: z.string().min(1),
  /** Few-shot examples per prompt. @default 0 */
  num_fewshot: z.number().int().nonnegative().default(0),
  /** The name the task's results are reported under. @default the task's name */
  task_alias: z.string().min(1).optional(),
});

/** An eval task as callers write it. */
export type EvalTaskConfig = z.input<typeof EvalTaskConfigSchema>;

/** The config of the eval step as it runs (every reference resolved to a path). */
export const EvalStepConfigSchema = z.strictObject({
  /** The step's output directory: configs, task data, logs and `results.json`. */
  evaluation_path: z.string().min(1),
  /** A Hugging Face export: `<run>/hf/step-N`, `<run>/hf` or `<run>` (see `discover_latest_checkpoint`). */
  model_path: z.string().min(1),
  /** The model's Levanter config (its type and context length; the weights come from the export). */
  model: LevanterModelConfigSchema,
  /** The token cache whose validation split `eval_lm` scores; `null` skips loss and bits-per-byte. */
  cache_path: z.string().min(1).nullable().default(null),
  /** The cache's name in Levanter's data config (the tag its metrics are reported under). @default "validation" */
  component_name: z.string().min(1).default('validation'),
  tags: z.array(z.string().min(1)).default([]),
  evals: z.array(EvalTaskConfigSchema).default([]),
  /**
   * Where registered lm-eval tasks read their data: `"hub"` (their hub datasets, through lm-eval), or
   * `"shipped"` (the package's small offline slices, through the same registered task definitions). @default "hub"
   */
  task_data: z.enum(['hub', 'shipped']).default('hub'),
  /** Instances per lm-eval task at most. @default null (all) */
  max_eval_instances: z.number().int().positive().nullable().default(null),
  /** Validation batches `eval_lm` scores at most. @default null (the whole split) */
  max_eval_batches: z.number().int().positive().nullable().default(null),
  /** Use the newest `step-N` export below `model_path`. @default true */
  discover_latest_checkpoint: z.boolean().default(true),
  /** Sequences per evaluation batch. @default 8 */
  eval_batch_size: z.number().int().positive().default(8),
  resources: z.record(z.string(), z.unknown()).nullable().default(null),
  env_vars: z.record(z.string(), z.string()).default({}),
  compilation_cache_dir: z.string().min(1).nullable().default(null),
  /** The requirements lock of the jobs' Python environment. @default null (the package's `python/levanter.lock`) */
  python_lock: z.string().min(1).nullable().default(null),
});

/** The resolved, validated config of the eval step. */
export type EvalStepConfig = z.output<typeof EvalStepConfigSchema>;

/**
 * Validates the eval step's config.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID naming the first bad field; zod's issues in `details.issues`
 */
export function parseEvalStepConfig(raw: unknown): EvalStepConfig {
  const parsed = EvalStepConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const field = first?.path.join('.') ?? '';
  throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid eval config${field === '' ? '' : ` field "${field}"`}: ${first?.message ?? 'invalid'}`, {
    cause: parsed.error,
    details: { field, issues: parsed.error.issues },
  });
}
