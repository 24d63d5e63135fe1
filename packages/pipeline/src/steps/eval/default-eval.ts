import { ExecutorStep, THIS_OUTPUT_PATH, VersionedValue, versioned } from '@marin/executor';
import type { OutputName } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { PipelineError } from '../../errors.js';
import type { DefaultTrainConfig } from '../train/default-train.js';
import { trainedModelOf } from './trained-model.js';
import type { TrainedModelFields } from './trained-model.js';
import { coreTask } from './core-tasks.js';
import { assertShippedSlices, evaluateLevanter } from './eval.js';
import { localTaskOf } from './harness-tasks.js';
import { EvalTaskConfigSchema } from './eval-step-config.js';
import type { EvalTaskConfig } from './eval-step-config.js';

/** Options of {@link defaultEval}. */
export interface DefaultEvalOptions {
  /**
   * lm-eval tasks (versioned): a key of Marin's `CORE_TASKS` (`'arc_easy'`, `'hellaswag_10shot'`, … with Marin's
   * few-shot counts) or a shipped task's name (`'tiny_mc'`), or `{ name, num_fewshot, task_alias }` for a shipped
   * task, a local JSONL file or any registered lm-eval task. @default []
   */
  evals?: (EvalTaskConfig | string)[];
  /**
   * Where registered tasks read their data (versioned): `'hub'`, or `'shipped'` to run them offline on the
   * package's small slices through the same registered definitions (`arc_easy`, `piqa`, `boolq`,
   * `lambada_openai`). @default "hub"
   */
  taskData?: 'hub' | 'shipped';
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
export interface DefaultEvalConfig extends TrainedModelFields {
  evaluation_path: OutputName;
  evals: VersionedValue<EvalTaskConfig[]>;
  /** Present (versioned) only when not `"hub"`, so configs that never set it keep their versions. */
  task_data?: VersionedValue<'shipped'>;
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
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID when `trainStep` was not made by `defaultTrain`, an eval is an
 *   unknown task key (`details.known` lists the keys), or `taskData: 'shipped'` names a task without a shipped slice
 */
export function defaultEval(trainStep: ExecutorStep<DefaultTrainConfig>, options: DefaultEvalOptions = {}): ExecutorStep<DefaultEvalConfig> {
  const { base, fields, train } = trainedModelOf(trainStep, 'defaultEval');
  const resources = options.resourceConfig ?? null;
  // Defaults applied before hashing, so `{ name }` and `{ name, num_fewshot: 0 }` are the same version.
  const evals = (options.evals ?? []).map((entry) => {
    const task = typeof entry === 'string' ? taskOfKey(entry) : entry;
    const parsed = EvalTaskConfigSchema.safeParse(task);
    if (!parsed.success) {
      throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid eval task ${JSON.stringify(task)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
        cause: parsed.error,
        details: { field: 'evals', issues: parsed.error.issues },
      });
    }
    return parsed.data;
  });
  const taskData = options.taskData ?? 'hub';
  if (taskData === 'shipped') assertShippedSlices(evals.filter((t) => localTaskOf(t.name) === null).map((t) => t.name));
  return new ExecutorStep<DefaultEvalConfig>({
    name: `evaluation/levanter/${base}`,
    fn: evaluateLevanter,
    overrideOutputPath: options.overrideOutputPath ?? null,
    config: {
      evaluation_path: THIS_OUTPUT_PATH,
      ...fields,
      evals: versioned(evals),
      ...(taskData === 'hub' ? {} : { task_data: versioned(taskData) }),
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

/** A string eval: a shipped task's name (`tiny_mc`), else a key of `CORE_TASKS`. */
function taskOfKey(key: string): EvalTaskConfig {
  if (localTaskOf(key) !== null) return { name: key, num_fewshot: 0 };
  const core = coreTask(key);
  return { name: core.name, num_fewshot: core.num_fewshot, ...(core.task_alias === undefined ? {} : { task_alias: core.task_alias }) };
}
