import { ExecutorStep, InputName, versioned } from '@marin/executor';
import type { ResourceConfig, ResourceOptions } from '@marin/fray';
import { PipelineError } from '../../errors.js';
import { buildTrainStep } from './default-train.js';
import type { DefaultTrainConfig, TrainData } from './default-train.js';
import type { LevanterModelConfig } from './levanter-model-config.js';
import type { TokenizedSource } from './tokenized-source.js';

/** The AdamW optimizer of a run, every choice explicit (Levanter's `AdamConfig` names). */
export interface TrainLmOptimizer {
  learning_rate: number;
  weight_decay: number;
  /** A fraction of the steps when at most 1, else a step count. */
  warmup: number;
  lr_schedule: 'cosine' | 'linear' | 'constant' | 'inv_sqrt' | 'inv';
  min_lr_ratio: number;
  beta1?: number;
  beta2?: number;
  epsilon?: number;
  /** `null` turns gradient clipping off. */
  max_grad_norm?: number | null;
  /** A fraction of the steps or a step count; `null` decays over the run after warmup. */
  decay?: number | null;
}

/** How long a run trains: steps, tokens, or epochs over the training caches (steps computed from the cache's token count). */
export type TrainLmBudget = { steps: number } | { tokens: number } | { epochs: number };

/** What a run starts from: a Levanter checkpoint (a train step, or a path) or a Hugging Face export. */
export type TrainLmInit = { checkpoint: ExecutorStep | InputName | string } | { hf: ExecutorStep | InputName | string };

/** The arguments of {@link trainLm}: the run's decisions are required, nothing is defaulted for you. */
export interface TrainLmArgs {
  /** The step is `checkpoints/<name>`. */
  name: string;
  model: LevanterModelConfig;
  optimizer: TrainLmOptimizer;
  /** A tokenize step, a cache path, or a {@link mixture}. */
  data: TrainData;
  /** Validation-only caches by name (`defaultValidationSets(...)`, or your own), each reported by Levanter under its name. */
  validation: Readonly<Record<string, TokenizedSource>>;
  batchSize: number;
  seqLen: number;
  budget: TrainLmBudget;
  /** Weight of the z-loss term; `null` for none. */
  zLossWeight: number | null;
  /** `null` trains from scratch. */
  initFrom: TrainLmInit | null;
  /** Rolling checkpoints every `rollingMinutes` (overwritten; what a rerun resumes from), permanent ones every `permanentEverySteps` (`null`: only the last). */
  checkpoints: { rollingMinutes: number; permanentEverySteps: number | null };
  stepsPerEval: number;
  /** Where the Levanter job runs (never versioned). */
  resources: ResourceConfig | ResourceOptions;
  /** Mixed precision policy. @default "p=f32,c=bfloat16" (Marin's) */
  mp?: string;
  seed?: number;
  /** Steps between Hugging Face exports; `-1` turns them off. @default follows `checkpoints.permanentEverySteps` */
  hfExportEverySteps?: number | -1;
  maxEvalBatches?: number | null;
  tags?: string[];
  envVars?: Record<string, string>;
  overrideOutputPath?: string | null;
  compilationCacheDir?: string | null;
  pythonLock?: string | null;
  wandbProject?: string;
}

/**
 * Marin's `train_lm`: a training step where every decision is the caller's (model, optimizer, data and
 * validation, batch and sequence length, budget, z-loss, initialization, checkpoint cadence), built on the
 * same train step as `defaultTrain`, so it writes the same files and resumes the same way (a rerun continues
 * from the newest rolling or permanent checkpoint). A token or epoch budget becomes a step count when the
 * step runs, from the caches' token counts: `ceil(tokens / (batchSize × seqLen))`, an epoch being every
 * token of the training components once.
 *
 * @example
 * const model = trainLm({ name: 'mix-nano', model: llama_nano, data: mixture({ web: [web, 3], code: [code, 1] }),
 *   validation: defaultValidationSets('marin-tiny-bpe', { suite: 'offline' }),
 *   optimizer: { learning_rate: 3e-3, weight_decay: 0.1, warmup: 0.1, lr_schedule: 'cosine', min_lr_ratio: 0.1 },
 *   batchSize: 8, seqLen: 64, budget: { epochs: 1 }, zLossWeight: null, initFrom: null,
 *   checkpoints: { rollingMinutes: 10, permanentEverySteps: 100 }, stepsPerEval: 50, resources: { device: { kind: 'cpu' } } });
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for a bad model, optimizer, budget or cadence;
 *   PIPELINE_MIXTURE_INVALID for bad data (see {@link mixture})
 */
export function trainLm(args: TrainLmArgs): ExecutorStep<DefaultTrainConfig> {
  const budget = args.budget;
  const steps = 'steps' in budget ? budget.steps : null;
  if ('tokens' in budget && !(Number.isInteger(budget.tokens) && budget.tokens > 0)) throw bad('budget.tokens', `a token budget is a whole number above 0, got ${budget.tokens}`);
  if ('epochs' in budget && !(Number.isFinite(budget.epochs) && budget.epochs > 0)) throw bad('budget.epochs', `an epoch budget is above 0, got ${budget.epochs}`);
  if (args.model.max_seq_len < args.seqLen) throw bad('seqLen', `seqLen ${args.seqLen} exceeds the model's max_seq_len ${args.model.max_seq_len}`);
  const init = args.initFrom;
  const extras: Parameters<typeof buildTrainStep>[5] = {};
  if (steps === null) extras.budget = versioned(budget);
  if (init !== null && 'checkpoint' in init) extras.init_from_checkpoint = ref(init.checkpoint, 'checkpoints');
  if (init !== null && 'hf' in init) extras.initialize_from_hf = ref(init.hf, 'hf');
  const o = args.optimizer;
  return buildTrainStep(
    args.name,
    args.data,
    args.model,
    {
      resources: args.resources,
      train_batch_size: args.batchSize,
      num_train_steps: steps,
      train_seq_len: args.seqLen,
      learning_rate: o.learning_rate,
      weight_decay: o.weight_decay,
      warmup: o.warmup,
      lr_schedule: o.lr_schedule,
      min_lr_ratio: o.min_lr_ratio,
      ...(o.beta1 === undefined ? {} : { beta1: o.beta1 }),
      ...(o.beta2 === undefined ? {} : { beta2: o.beta2 }),
      ...(o.epsilon === undefined ? {} : { epsilon: o.epsilon }),
      ...(o.max_grad_norm === undefined ? {} : { max_grad_norm: o.max_grad_norm }),
      ...(o.decay === undefined ? {} : { decay: o.decay }),
      z_loss_weight: args.zLossWeight ?? 0,
      steps_per_eval: args.stepsPerEval,
      checkpoint_minutes: args.checkpoints.rollingMinutes,
      steps_per_export: args.checkpoints.permanentEverySteps,
      steps_per_hf_export: args.hfExportEverySteps ?? null,
      max_eval_batches: args.maxEvalBatches ?? null,
      ...(args.mp === undefined ? {} : { mp: args.mp }),
      ...(args.seed === undefined ? {} : { seed: args.seed }),
      env_vars: args.envVars ?? {},
    },
    {
      tags: args.tags ?? [],
      validationSets: args.validation,
      overrideOutputPath: args.overrideOutputPath ?? null,
      compilationCacheDir: args.compilationCacheDir ?? null,
      pythonLock: args.pythonLock ?? null,
      ...(args.wandbProject === undefined ? {} : { wandbProject: args.wandbProject }),
    },
    extras,
  );
}

/** A train step becomes its `checkpoints/` (or `hf/`) directory; a reference or path is kept (a path is versioned). */
function ref(from: ExecutorStep | InputName | string, dir: string): ExecutorStep | InputName | ReturnType<typeof versioned<string>> {
  if (from instanceof ExecutorStep) return from.cd(dir);
  if (from instanceof InputName) return from;
  return versioned(from);
}

function bad(field: string, message: string): PipelineError {
  return new PipelineError('PIPELINE_CONFIG_INVALID', `trainLm: ${message}`, { details: { field } });
}
