import { ExecutorStep, THIS_OUTPUT_PATH, VersionedValue, versioned } from '@marin/executor';
import type { OutputName } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import type { DefaultTrainConfig } from '../train/default-train.js';
import { trainedModelOf } from './trained-model.js';
import type { TrainedModelFields } from './trained-model.js';
import { evaluateServed } from './served-eval.js';

/** Options of {@link defaultServedEval}. */
export interface DefaultServedEvalOptions {
  /** Validation batches scored at most (versioned). @default null (the whole split) */
  maxEvalBatches?: number | null;
  /** Sequences per batch, i.e. per actor call (versioned: Levanter's bits per byte is a per-batch mean). @default 8 */
  evalBatchSize?: number;
  /** Calls in flight at once; not versioned. @default 2 */
  maxInFlight?: number;
  /** Resources of the actor's job; never versioned. @default one CPU */
  resourceConfig?: ResourceConfig | ResourceOptions | null;
  /** Serve the newest `hf/step-N` export. @default true */
  discoverLatestCheckpoint?: boolean;
  /** Extra environment variables of the actor's job. @default {} */
  envVars?: Record<string, string>;
  /** JAX's persistent compilation cache; not versioned. @default null (off) */
  compilationCacheDir?: string | null;
  /** How long the actor may take to load and compile before it serves; not versioned. @default 600000 */
  readyTimeoutMs?: number;
  /** Deadline of one batch's call; not versioned. @default 600000 */
  callTimeoutMs?: number;
  /** Pin the output path (never changes the hash). @default null */
  overrideOutputPath?: string | null;
  /** The requirements lock of the actor's Python environment; not versioned. @default the train step's */
  pythonLock?: string | null;
}

/** The config `defaultServedEval` builds; the step resolves it to a `ServedEvalStepConfig`. */
export interface DefaultServedEvalConfig extends TrainedModelFields {
  evaluation_path: OutputName;
  max_eval_batches: VersionedValue<number | null>;
  eval_batch_size: VersionedValue<number>;
  max_in_flight: number;
  discover_latest_checkpoint: boolean;
  resources: ResourceOptions | null;
  env_vars: Record<string, string>;
  compilation_cache_dir: string | null;
  python_lock: string | null;
  ready_timeout_ms: number;
  call_timeout_ms: number;
}

/**
 * A step `evaluation/served/{name}` (the train step's base name) that serves the train step's newest Hugging Face
 * export as a Fray actor and streams the training cache's validation split to it: loss and bits per byte (as
 * Levanter's `eval_lm` computes them) into `results.json`, the serving details into `served_eval.json`.
 * `maxEvalBatches` and `evalBatchSize` are versioned; resources and timeouts are not.
 *
 * @example
 * const served = defaultServedEval(model, { maxEvalBatches: 4 });
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID when `trainStep` was not made by `defaultTrain`
 */
export function defaultServedEval(trainStep: ExecutorStep<DefaultTrainConfig>, options: DefaultServedEvalOptions = {}): ExecutorStep<DefaultServedEvalConfig> {
  const { base, fields, train } = trainedModelOf(trainStep, 'defaultServedEval');
  const resources = options.resourceConfig ?? null;
  return new ExecutorStep<DefaultServedEvalConfig>({
    name: `evaluation/served/${base}`,
    fn: evaluateServed,
    overrideOutputPath: options.overrideOutputPath ?? null,
    config: {
      evaluation_path: THIS_OUTPUT_PATH,
      ...fields,
      max_eval_batches: versioned(options.maxEvalBatches ?? null),
      eval_batch_size: versioned(options.evalBatchSize ?? 8),
      max_in_flight: options.maxInFlight ?? 2,
      discover_latest_checkpoint: options.discoverLatestCheckpoint ?? true,
      resources: resources === null ? null : (resources instanceof ResourceConfig ? resources : new ResourceConfig(resources)).toOptions(),
      env_vars: options.envVars ?? {},
      compilation_cache_dir: options.compilationCacheDir ?? null,
      python_lock: options.pythonLock ?? train.python_lock ?? null,
      ready_timeout_ms: options.readyTimeoutMs ?? 600_000,
      call_timeout_ms: options.callTimeoutMs ?? 600_000,
    },
  });
}
