import { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { LevanterModelConfigSchema } from '../train/levanter-model-config.js';

/** The config of the served eval step as it runs (every reference resolved to a path). */
export const ServedEvalStepConfigSchema = z.strictObject({
  /** The step's output directory: the actor's config and log, `results.json`, `served_eval.json`. */
  evaluation_path: z.string().min(1),
  /** A Hugging Face export: `<run>/hf/step-N`, `<run>/hf` or `<run>` (see `discover_latest_checkpoint`). */
  model_path: z.string().min(1),
  /** The model's Levanter config (its type and context length; the weights come from the export). */
  model: LevanterModelConfigSchema,
  /** The token cache whose `validation` split is streamed to the served model. */
  cache_path: z.string().min(1),
  /** The cache's name in Levanter's data config (the tag its metrics are reported under). @default "validation" */
  component_name: z.string().min(1).default('validation'),
  tags: z.array(z.string().min(1)).default([]),
  /** Validation batches scored at most. @default null (the whole split) */
  max_eval_batches: z.number().int().positive().nullable().default(null),
  /** Use the newest `step-N` export below `model_path`. @default true */
  discover_latest_checkpoint: z.boolean().default(true),
  /** Sequences per batch: one actor call, one compiled shape, one of Levanter's eval batches. @default 8 */
  eval_batch_size: z.number().int().positive().default(8),
  /** Calls in flight at once (the next batch is read and sent while the actor scores the current one). @default 2 */
  max_in_flight: z.number().int().positive().max(64).default(2),
  resources: z.record(z.string(), z.unknown()).nullable().default(null),
  env_vars: z.record(z.string(), z.string()).default({}),
  compilation_cache_dir: z.string().min(1).nullable().default(null),
  /** The requirements lock of the actor's Python environment. @default null (the package's `python/levanter.lock`) */
  python_lock: z.string().min(1).nullable().default(null),
  /** How long the actor may take to load the model and print its ready line. @default 600000 */
  ready_timeout_ms: z.number().int().positive().default(600_000),
  /** Deadline of one `loglikelihood` call. @default 600000 */
  call_timeout_ms: z.number().int().positive().default(600_000),
});

/** The resolved, validated config of the served eval step. */
export type ServedEvalStepConfig = z.output<typeof ServedEvalStepConfigSchema>;

/**
 * Validates the served eval step's config.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID naming the first bad field; zod's issues in `details.issues`
 */
export function parseServedEvalStepConfig(raw: unknown): ServedEvalStepConfig {
  const parsed = ServedEvalStepConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const field = first?.path.join('.') ?? '';
  throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid served eval config${field === '' ? '' : ` field "${field}"`}: ${first?.message ?? 'invalid'}`, {
    cause: parsed.error,
    details: { field, issues: parsed.error.issues },
  });
}
