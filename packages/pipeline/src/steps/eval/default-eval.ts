import { ExecutorStep, InputName, THIS_OUTPUT_PATH, VersionedValue, versioned } from '@marin/executor';
import type { OutputName } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { PipelineError } from '../../errors.js';
import type { DefaultTrainConfig } from '../train/default-train.js';
import { evaluateLevanter } from './eval.js';
import { EvalTaskConfigSchema } from './eval-step-config.js';
import type { EvalTaskConfig } from './eval-step-config.js';

/** Options of {@link defaultEval}. */
export interface DefaultEvalOptions {
  /** lm-eval tasks (versioned): shipped (`tiny_mc`), local JSONL files, or registered lm-eval tasks. @default [] */
  evals?: EvalTaskConfig[];
  /** Instances per task at most (versioned). @default null (all) */
  maxEvalInstances?: number | null;
  /** Validation batches scored at most (versioned). @default null (the whole split) */
  maxEvalBatches?: number | null;
  /** Resources of the eval jobs; never versioned. @default one CPU */
  resourceConfig?: ResourceConfig | ResourceOptions | null;
  /** Evaluate the newest `hf/step-N` export. @default true */
  discoverLatestCheckpoint?: boolean;
  /** Sequences per evaluation batch. @default 8 */
  evalBatchSize?: number;
  /** Extra environment variables of the jobs. @default {} */
  envVars?: Record<string, string>;
  /** JAX's persistent compilation cache; not versioned. @default null (off) */
  compilationCacheDir?: string | null;
  /** Pin the output path (never changes the hash). @default null */
  overrideOutputPath?: string | null;
  /** The requirements lock of the jobs' Python environment; not versioned. @default the train step's */
  pythonLock?: string | null;
}

/** The config `defaultEval` builds; the step resolves it to an `EvalStepConfig`. */
export interface DefaultEvalConfig {
  evaluation_path: OutputName;
  model_path: InputName;
  model: unknown;
  cache_path: unknown;
  component_name: string;
  tags: string[];
  evals: VersionedValue<EvalTaskConfig[]>;
  max_eval_instances: VersionedValue<number | null>;
  max_eval_batches: VersionedValue<number | null>;
  discover_latest_checkpoint: boolean;
  eval_batch_size: number;
  resources: ResourceOptions | null;
  env_vars: Record<string, string>;
  compilation_cache_dir: string | null;
  python_lock: string | null;
}

/**
 * A step `evaluation/levanter/{name}` (the train step's base name) that evaluates the train step's newest
 * Hugging Face export with Levanter: loss and bits per byte on the training cache's validation split,
 * per tag, and the given lm-eval tasks, into `results.json`. `evals`, `maxEvalInstances` and
 * `maxEvalBatches` are versioned; resources are not.
 *
 * @example
 * const evals = defaultEval(model, { evals: [{ name: 'tiny_mc', num_fewshot: 0 }] });
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID when `trainStep` was not made by `defaultTrain`
 */
export function defaultEval(trainStep: ExecutorStep<DefaultTrainConfig>, options: DefaultEvalOptions = {}): ExecutorStep<DefaultEvalConfig> {
  const train = trainStep.config as Partial<DefaultTrainConfig> | undefined;
  if (train === undefined || !(train.model instanceof VersionedValue) || train.cache_path === undefined) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `defaultEval needs a step made by defaultTrain, got ${String(trainStep)}`, {
      details: { field: 'trainStep' },
    });
  }
  const resources = options.resourceConfig ?? null;
  // Defaults applied before hashing, so `{ name }` and `{ name, num_fewshot: 0 }` are the same version.
  const evals = (options.evals ?? []).map((task) => {
    const parsed = EvalTaskConfigSchema.safeParse(task);
    if (!parsed.success) {
      throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid eval task ${JSON.stringify(task)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
        cause: parsed.error,
        details: { field: 'evals', issues: parsed.error.issues },
      });
    }
    return parsed.data;
  });
  const base = trainStep.name.split('/').at(-1) ?? trainStep.name;
  return new ExecutorStep<DefaultEvalConfig>({
    name: `evaluation/levanter/${base}`,
    fn: evaluateLevanter,
    overrideOutputPath: options.overrideOutputPath ?? null,
    config: {
      evaluation_path: THIS_OUTPUT_PATH,
      model_path: trainStep.cd('hf'),
      // Already part of the train step's version, which this step depends on.
      model: train.model.value,
      cache_path: train.cache_path,
      component_name: train.component_name ?? 'validation',
      tags: train.tags?.value ?? [],
      evals: versioned(evals),
      max_eval_instances: versioned(options.maxEvalInstances ?? null),
      max_eval_batches: versioned(options.maxEvalBatches ?? null),
      discover_latest_checkpoint: options.discoverLatestCheckpoint ?? true,
      eval_batch_size: options.evalBatchSize ?? 8,
      resources: resources === null ? null : (resources instanceof ResourceConfig ? resources : new ResourceConfig(resources)).toOptions(),
      env_vars: options.envVars ?? {},
      compilation_cache_dir: options.compilationCacheDir ?? null,
      python_lock: options.pythonLock ?? train.python_lock ?? null,
    },
  });
}
