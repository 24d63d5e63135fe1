import { prefixJoin } from '@marin/rigging';
import type { LevanterConfigValue } from '../../levanter/levanter-yaml.js';
import { levanterModelSection } from './levanter-model-config.js';
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
  cachePath: string;
  tokenizerPath: string;
  /** The job has no accelerator: Levanter must not require one. */
  cpu: boolean;
  /** Log W&B too (a key is present). */
  wandb: boolean;
  /** The cache has a validation split to evaluate on. */
  hasValidation: boolean;
  /** Levanter's own log directory; a local directory even when the output is a bucket. */
  logDir: string;
}

/**
 * Levanter's `TrainLmConfig` for a train step, as Marin's `default_train` builds it: the tokenize step's
 * cache as the one data component with no source (Levanter only loads it, never rebuilds it),
 * permanent checkpoints every `steps_per_export` under `<out>/checkpoints` plus temporary ones every
 * `checkpoint_minutes`, Hugging Face exports under `<out>/hf`, the output's basename as run id, a
 * `json_logger` tracker (plus W&B when a key is present) and `require_accelerator: false` on CPU.
 */
export function buildTrainLmConfig(config: TrainStepConfig, ctx: TrainLmContext): { [key: string]: LevanterConfigValue } {
  const t = config.train;
  const hfSteps = t.steps_per_hf_export ?? t.steps_per_export ?? t.num_train_steps;
  const component: { [key: string]: LevanterConfigValue } = {
    type: 'cached',
    cache_dir: ctx.cachePath,
    source: null,
    tags: config.tags,
  };
  if (!ctx.hasValidation) {
    // With no source Levanter fails on a missing split; a source without URLs makes it skip the split
    // instead, and still never builds anything.
    component['source'] = { type: 'url', train_urls: [], validation_urls: [] };
  }
  const trackers: LevanterConfigValue[] = [{ type: 'json_logger' }];
  if (ctx.wandb) {
    trackers.push({ type: 'wandb', project: config.wandb_project, tags: config.tags, replicate_path: ctx.outputPath, resume: 'allow' });
  }
  return {
    data: {
      tokenizer: ctx.tokenizerPath,
      cache_dir: null,
      auto_build_caches: false,
      components: { [config.component_name]: component },
    },
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
      num_train_steps: t.num_train_steps,
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
    hf_save_path: t.steps_per_hf_export === -1 ? null : ctx.layout.hfPath,
    hf_save_steps: hfSteps === -1 ? t.num_train_steps : hfSteps,
  };
}
