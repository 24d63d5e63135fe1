import { prefixJoin } from '@marin/rigging';
import type { LevanterConfigValue } from '../../levanter/levanter-yaml.js';
import { levanterModelSection } from './levanter-model-config.js';
import { levanterMixtureSection } from './mixture-data.js';
import type { ComponentCache, MixtureData } from './mixture-data.js';
import type { TrainStepConfig } from './train-step-config.js';

/** Where a train step's files live under its output directory. */
export interface TrainLayout {
  /** `<out>/levanter_config.yaml`: the `TrainLmConfig` the job reads. */
  configPath: string;
  /** `<out>/checkpoints`: Levanter checkpoints `step-N/` (what a rerun resumes from). */
  checkpointsPath: string;
  /** `<out>/hf`: Hugging Face exports `step-N/`. */
  hfPath: string;
  /** `<out>/hf_reference`: the local reference `config.json` of the export. */
  referencePath: string;
  /** `<out>/logs`: Levanter's log file and the kept job output. */
  logsPath: string;
  /** `<out>/train_summary.json`. */
  summaryPath: string;
}

/** The layout of the train step output `outputPath`. */
export function trainLayout(outputPath: string): TrainLayout {
  return {
    configPath: prefixJoin(outputPath, 'levanter_config.yaml'),
    checkpointsPath: prefixJoin(outputPath, 'checkpoints'),
    hfPath: prefixJoin(outputPath, 'hf'),
    referencePath: prefixJoin(outputPath, 'hf_reference'),
    logsPath: prefixJoin(outputPath, 'logs'),
    summaryPath: prefixJoin(outputPath, 'train_summary.json'),
  };
}

/** What the Levanter config depends on besides the step config. */
export interface TrainLmContext {
  /** Run id: the basename of the output path. */
  runId: string;
  /** The step's output directory as Levanter sees it (W&B replicates its summary there). */
  outputPath: string;
  /** Paths as Levanter sees them (plain paths for local files). */
  layout: TrainLayout;
  /** The data: the one cache as a one-component mixture, or the mixture; cache paths as Levanter sees them. */
  data: MixtureData;
  /** The step's data is one cache (`cache_path`): Levanter's `train_weights` default (every component 1) stays implicit. */
  singleCache: boolean;
  /** What each component's cache holds. */
  caches: Record<string, ComponentCache>;
  /** Steps to train: `train.num_train_steps`, or the budget's. */
  numTrainSteps: number;
  tokenizerPath: string;
  /** The job has no accelerator: Levanter must not require one. */
  cpu: boolean;
  /** Log W&B too (a key is present). */
  wandb: boolean;
  /** Levanter's own log directory; a local directory even when the output is a bucket. */
  logDir: string;
}

/**
 * Levanter's `TrainLmConfig` for a train step, as Marin's `default_train` builds it: each token cache (the
 * one tokenize step's, or a mixture's) as a data component with no source (Levanter only loads it, never
 * rebuilds it), the mixture's `train_weights` (validation sets at 0) and shuffle settings,
 * permanent checkpoints every `steps_per_export` under `<out>/checkpoints` plus temporary ones every
 * `checkpoint_minutes`, Hugging Face exports under `<out>/hf`, the output's basename as run id, a
 * `json_logger` tracker (plus W&B when a key is present) and `require_accelerator: false` on CPU.
 */
export function buildTrainLmConfig(config: TrainStepConfig, ctx: TrainLmContext): { [key: string]: LevanterConfigValue } {
  const t = config.train;
  const numTrainSteps = ctx.numTrainSteps;
  const hfSteps = t.steps_per_hf_export ?? t.steps_per_export ?? numTrainSteps;
  const data = levanterMixtureSection(ctx.data, ctx.tokenizerPath, ctx.caches);
  if (ctx.singleCache) data['train_weights'] = undefined;
  const trackers: LevanterConfigValue[] = [{ type: 'json_logger' }];
  if (ctx.wandb) {
    trackers.push({ type: 'wandb', project: config.wandb_project, tags: config.tags, replicate_path: ctx.outputPath, resume: 'allow' });
  }
  return {
    data,
    model: levanterModelSection(config.model, ctx.tokenizerPath, ctx.layout.referencePath) as { [key: string]: LevanterConfigValue },
    train_seq_len: t.train_seq_len,
    trainer: {
      id: ctx.runId,
      seed: t.seed,
      mp: t.mp,
      tracker: trackers.length === 1 ? (trackers[0] as LevanterConfigValue) : trackers,
      log_dir: ctx.logDir,
      require_accelerator: ctx.cpu ? false : undefined,
      train_batch_size: t.train_batch_size,
      num_train_steps: numTrainSteps,
      steps_per_eval: t.steps_per_eval,
      max_eval_batches: t.max_eval_batches,
      checkpointer: {
        base_path: ctx.layout.checkpointsPath,
        append_run_id_to_base_path: false,
        save_interval: `${Math.max(1, Math.round(t.checkpoint_minutes * 60))}s`,
        keep: t.steps_per_export === null ? [] : [{ every: t.steps_per_export }],
      },
      jax_compilation_cache_dir: config.compilation_cache_dir ?? undefined,
    },
    optimizer: {
      type: 'adam',
      learning_rate: t.learning_rate,
      weight_decay: t.weight_decay,
      beta1: t.beta1,
      beta2: t.beta2,
      epsilon: t.epsilon,
      max_grad_norm: t.max_grad_norm,
      warmup: t.warmup,
      decay: t.decay,
      lr_schedule: t.lr_schedule,
      min_lr_ratio: t.min_lr_ratio,
    },
    z_loss_weight: t.z_loss_weight,
    data_seed: t.data_seed,
    initialize_from_checkpoint_path: t.initialize_from_checkpoint_path,
    initialize_from_hf: config.initialize_from_hf ?? undefined,
    hf_save_path: t.steps_per_hf_export === -1 ? null : ctx.layout.hfPath,
    hf_save_steps: hfSteps === -1 ? numTrainSteps : hfSteps,
  };
}
