import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecutorStep, InputName, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import type { OutputName, StepContext, VersionedValue } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { copy, exists, prefixJoin } from '@marin/rigging';
import { computeDecon } from '../../curation/decon/decon-stage.js';
import { NGramConfigSchema } from '../../curation/decon/ngram-features.js';
import type { NGramConfig, NGramConfigInput } from '../../curation/decon/ngram-features.js';
import { computeFuzzyDups } from '../../curation/minhash/fuzzy-dups-stage.js';
import { computeMinhashAttrs } from '../../curation/minhash/minhash-attrs.js';
import { parseMinHashParams } from '../../curation/minhash/minhash-params.js';
import type { MinHashParamsInput } from '../../curation/minhash/minhash-params.js';
import { ensureCurationPython } from '../../curation/quality/fasttext-python.js';
import { computeQualityScores } from '../../curation/quality/quality-stage.js';
import { trainFasttextClassifier } from '../../curation/quality/train-fasttext.js';
import { listDatasetParts } from '../../formats/dataset-parts.js';
import { readPartRecords } from '../../formats/record-reader.js';

/** A dataset a curation step reads: a step, a reference into one (`outputPathOf(step, 'outputs/main')`) or a path. */
export type CurationSource = ExecutorStep | InputName | string;

/** Scheduling options every curation step takes; never versioned. */
export interface CurationRunOptions {
  /** Tasks (or Fray jobs) in flight at once. @default 4 */
  maxParallelism?: number;
  /** One Fray job per task with these resources; `null` runs every task in this process. @default null */
  resources?: ResourceConfig | ResourceOptions | null;
}

function source(s: CurationSource): ExecutorStep | InputName {
  return typeof s === 'string' ? InputName.hardcoded(s) : s;
}

function resourcesJson(r: ResourceConfig | ResourceOptions | null | undefined): ResourceOptions | null {
  if (r === null || r === undefined) return null;
  return (r instanceof ResourceConfig ? r : new ResourceConfig(r)).toOptions() as ResourceOptions;
}

function run(ctx?: Pick<StepContext, 'signal'>): { signal: AbortSignal } {
  return { signal: ctx?.signal ?? new AbortController().signal };
}

/** Config of {@link defaultMinhash} (Marin's `compute_minhash_attrs_step` hash attrs, versioned one by one). */
export interface MinhashStepConfig {
  input_path: ExecutorStep | InputName;
  output_path: OutputName;
  num_perms: VersionedValue<number>;
  num_bands: VersionedValue<number>;
  ngram_size: VersionedValue<number>;
  seed: VersionedValue<number>;
  text_cap_chars: VersionedValue<number | null>;
  text_field: VersionedValue<string>;
  max_parallelism: number;
  resources: ResourceOptions | null;
}

/** The MinHash step's function: `computeMinhashAttrs` on the resolved config. */
export async function minhashStep(config: Record<string, unknown>, ctx?: Pick<StepContext, 'signal'>): Promise<void> {
  const c = config as { input_path: string; output_path: string; text_field: string; max_parallelism: number; resources: ResourceOptions | null } & MinHashParamsInput;
  await computeMinhashAttrs({
    source: c.input_path,
    outputDir: c.output_path,
    params: { num_perms: c.num_perms, num_bands: c.num_bands, ngram_size: c.ngram_size, seed: c.seed, text_cap_chars: c.text_cap_chars },
    textField: c.text_field,
    maxParallelism: c.max_parallelism,
    resources: c.resources,
    ...run(ctx),
  });
}

/**
 * A step `attributes/minhash/{name}`: the MinHash + LSH bucket attributes of a partitioned dataset (normalize's
 * `outputs/main`), co-partitioned, with Marin's defaults (286 permutations, 26 bands, word 5-grams, seed 42, texts
 * capped at 500,000 characters).
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID at once for params that do not fit together
 */
export function defaultMinhash(name: string, input: CurationSource, options: MinHashParamsInput & CurationRunOptions & { textField?: string } = {}): ExecutorStep<MinhashStepConfig> {
  const p = parseMinHashParams({
    ...(options.num_perms !== undefined ? { num_perms: options.num_perms } : {}),
    ...(options.num_bands !== undefined ? { num_bands: options.num_bands } : {}),
    ...(options.ngram_size !== undefined ? { ngram_size: options.ngram_size } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.text_cap_chars !== undefined ? { text_cap_chars: options.text_cap_chars } : {}),
  });
  return new ExecutorStep<MinhashStepConfig>({
    name: `attributes/minhash/${name}`,
    fn: minhashStep,
    config: {
      input_path: source(input),
      output_path: THIS_OUTPUT_PATH,
      num_perms: versioned(p.num_perms),
      num_bands: versioned(p.num_bands),
      ngram_size: versioned(p.ngram_size),
      seed: versioned(p.seed),
      text_cap_chars: versioned(p.text_cap_chars),
      text_field: versioned(options.textField ?? 'text'),
      max_parallelism: options.maxParallelism ?? 4,
      resources: resourcesJson(options.resources),
    },
  });
}

/** Config of {@link defaultFuzzyDedup}. */
export interface FuzzyDedupStepConfig {
  input_paths: (ExecutorStep | InputName)[];
  output_path: OutputName;
  num_partitions: number;
  max_parallelism: number;
  resources: ResourceOptions | null;
}

/** The fuzzy-dedup step's function: `computeFuzzyDups` on the resolved config. */
export async function fuzzyDedupStep(config: Record<string, unknown>, ctx?: Pick<StepContext, 'signal'>): Promise<void> {
  const c = config as { input_paths: string[]; output_path: string; num_partitions: number; max_parallelism: number; resources: ResourceOptions | null };
  await computeFuzzyDups({ inputs: c.input_paths, outputDir: c.output_path, numPartitions: c.num_partitions, maxParallelism: c.max_parallelism, resources: c.resources, ...run(ctx) });
}

/**
 * A step `attributes/fuzzy-dups/{name}`: fuzzy duplicates across one or more MinHash steps' datasets at once
 * (connected components over the whole LSH graph), one attribute dataset per input under `outputs/source_NNN/`.
 * Only the inputs are versioned (their params are): the shuffle width changes nothing in the result.
 */
export function defaultFuzzyDedup(name: string, minhash: CurationSource | CurationSource[], options: CurationRunOptions & { numPartitions?: number } = {}): ExecutorStep<FuzzyDedupStepConfig> {
  const inputs = Array.isArray(minhash) ? minhash : [minhash];
  return new ExecutorStep<FuzzyDedupStepConfig>({
    name: `attributes/fuzzy-dups/${name}`,
    fn: fuzzyDedupStep,
    config: {
      input_paths: inputs.map(source),
      output_path: THIS_OUTPUT_PATH,
      num_partitions: options.numPartitions ?? 8,
      max_parallelism: options.maxParallelism ?? 4,
      resources: resourcesJson(options.resources),
    },
  });
}

/** Config of {@link defaultDecontaminate}. */
export interface DecontaminateStepConfig {
  input_path: ExecutorStep | InputName;
  eval_paths: (ExecutorStep | InputName)[];
  output_path: OutputName;
  ngram: VersionedValue<NGramConfig>;
  text_field: VersionedValue<string>;
  eval_text_field: VersionedValue<string>;
  exact_set_max_hashes: number;
  false_positive_rate: VersionedValue<number>;
  max_parallelism: number;
  resources: ResourceOptions | null;
}

/** The decontamination step's function: `computeDecon` on the resolved config. */
export async function decontaminateStep(config: Record<string, unknown>, ctx?: Pick<StepContext, 'signal'>): Promise<void> {
  const c = config as { input_path: string; eval_paths: string[]; output_path: string; ngram: NGramConfig; text_field: string; eval_text_field: string; exact_set_max_hashes: number; false_positive_rate: number; max_parallelism: number; resources: ResourceOptions | null };
  await computeDecon({
    source: c.input_path,
    evalPaths: c.eval_paths,
    outputDir: c.output_path,
    ngram: c.ngram,
    textField: c.text_field,
    evalTextField: c.eval_text_field,
    exactSetMaxHashes: c.exact_set_max_hashes,
    falsePositiveRate: c.false_positive_rate,
    maxParallelism: c.max_parallelism,
    resources: c.resources,
    ...run(ctx),
  });
}

/**
 * A step `attributes/decon/{name}`: marks the documents of a partitioned dataset whose paragraphs overlap the eval
 * datasets (any format the pipeline reads), with Marin's n-gram config and evidence thresholds (versioned).
 */
export function defaultDecontaminate(
  name: string,
  input: CurationSource,
  evals: CurationSource | CurationSource[],
  options: CurationRunOptions & { ngram?: NGramConfigInput; textField?: string; evalTextField?: string; exactSetMaxHashes?: number; falsePositiveRate?: number } = {},
): ExecutorStep<DecontaminateStepConfig> {
  return new ExecutorStep<DecontaminateStepConfig>({
    name: `attributes/decon/${name}`,
    fn: decontaminateStep,
    config: {
      input_path: source(input),
      eval_paths: (Array.isArray(evals) ? evals : [evals]).map(source),
      output_path: THIS_OUTPUT_PATH,
      ngram: versioned(NGramConfigSchema.parse(options.ngram ?? {})),
      text_field: versioned(options.textField ?? 'text'),
      eval_text_field: versioned(options.evalTextField ?? options.textField ?? 'text'),
      exact_set_max_hashes: options.exactSetMaxHashes ?? 4_000_000,
      false_positive_rate: versioned(options.falsePositiveRate ?? 1e-9),
      max_parallelism: options.maxParallelism ?? 4,
      resources: resourcesJson(options.resources),
    },
  });
}

/** Config of {@link defaultQualityScore}. */
export interface QualityScoreStepConfig {
  input_path: ExecutorStep | InputName;
  model_path: ExecutorStep | InputName | VersionedValue<string>;
  label: VersionedValue<string>;
  text_field: VersionedValue<string>;
  output_path: OutputName;
  max_parallelism: number;
  resources: ResourceOptions | null;
  /** Score through a local pool of fastText actors; not versioned (the scores are the same). */
  actor_pool: QualityStepActorPool | null;
}

/** The actor pool of a quality step: how many actors, texts per call. */
export interface QualityStepActorPool {
  size: number;
  batch_size?: number;
}

/** The quality step's function: `computeQualityScores` on the resolved config. */
export async function qualityScoreStep(config: Record<string, unknown>, ctx?: Pick<StepContext, 'signal'>): Promise<void> {
  const c = config as {
    input_path: string;
    model_path: string;
    label: string;
    text_field: string;
    output_path: string;
    max_parallelism: number;
    resources: ResourceOptions | null;
    actor_pool?: QualityStepActorPool | null;
  };
  const modelUrl = (await exists(prefixJoin(c.model_path, 'model.bin'))) ? prefixJoin(c.model_path, 'model.bin') : c.model_path;
  const pool = c.actor_pool ?? null;
  await computeQualityScores({
    source: c.input_path,
    modelUrl,
    label: c.label,
    textField: c.text_field,
    outputDir: c.output_path,
    maxParallelism: c.max_parallelism,
    resources: c.resources,
    ...(pool === null ? {} : { actorPool: { size: pool.size, ...(pool.batch_size === undefined ? {} : { batchSize: pool.batch_size }) } }),
    ...run(ctx),
  });
}

/**
 * A step `attributes/quality/{name}`: every document's `quality_score` (the probability of `label`) from a fastText
 * model — a model file path, or a {@link defaultTrainQualityClassifier} step (its `model.bin`).
 */
export function defaultQualityScore(
  name: string,
  input: CurationSource,
  model: string | ExecutorStep | InputName,
  options: CurationRunOptions & { label?: string; textField?: string; actorPool?: QualityStepActorPool } = {},
): ExecutorStep<QualityScoreStepConfig> {
  return new ExecutorStep<QualityScoreStepConfig>({
    name: `attributes/quality/${name}`,
    fn: qualityScoreStep,
    config: {
      input_path: source(input),
      model_path: typeof model === 'string' ? versioned(model) : model,
      label: versioned(options.label ?? 'hq'),
      text_field: versioned(options.textField ?? 'text'),
      output_path: THIS_OUTPUT_PATH,
      max_parallelism: options.maxParallelism ?? 2,
      resources: resourcesJson(options.resources),
      actor_pool: options.actorPool ?? null,
    },
  });
}

/** One labelled dataset of {@link defaultTrainQualityClassifier}. */
export interface QualityTrainingSource {
  input: CurationSource;
  label: string;
  /** @default 1 */
  samplingRate?: number;
  /** @default null */
  maxSampleSize?: number | null;
}

/** Config of {@link defaultTrainQualityClassifier}. */
export interface TrainQualityStepConfig {
  datasets: { input_path: ExecutorStep | InputName; label: VersionedValue<string>; sampling_rate: VersionedValue<number>; max_sample_size: VersionedValue<number | null> }[];
  output_path: OutputName;
  fasttext_args: VersionedValue<Record<string, string | number | boolean>>;
  seed: VersionedValue<number>;
  val_frac: VersionedValue<number>;
}

/** The training step's function: trains in a local temp directory, then copies `model.bin` and `metrics.json` out. */
export async function trainQualityStep(config: Record<string, unknown>, ctx?: Pick<StepContext, 'signal'>): Promise<void> {
  const c = config as { datasets: { input_path: string; label: string; sampling_rate: number; max_sample_size: number | null }[]; output_path: string; fasttext_args: Record<string, string | number | boolean>; seed: number; val_frac: number };
  if (await exists(prefixJoin(c.output_path, 'model.bin'))) return;
  const { signal } = run(ctx);
  const python = await ensureCurationPython({ signal });
  const work = await mkdtemp(join(tmpdir(), 'train-quality-'));
  try {
    const datasets = await Promise.all(
      c.datasets.map(async (d) => {
        const parts = await listDatasetParts(d.input_path);
        return {
          label: d.label,
          samplingRate: d.sampling_rate,
          maxSampleSize: d.max_sample_size,
          records: async function* () {
            for (const part of parts) for await (const r of readPartRecords(part)) yield { text: r['text'] };
          },
        };
      }),
    );
    const result = await trainFasttextClassifier({ datasets, outputDir: work, python, seed: c.seed, valFrac: c.val_frac, fasttextArgs: c.fasttext_args, signal });
    await copy(join(work, 'metrics.json'), prefixJoin(c.output_path, 'metrics.json'));
    // model.bin last: its presence means the step's output is complete (copy writes under a temp name).
    await copy(result.modelPath, prefixJoin(c.output_path, 'model.bin'));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * A step `classifiers/{name}`: a fastText quality classifier trained from labelled datasets as Marin's
 * `train_fasttext` (each dataset sampled, labelled, merged; `val_frac` held out; `train_supervised` with
 * `fasttext_args`), written as `model.bin` and `metrics.json`.
 */
export function defaultTrainQualityClassifier(
  name: string,
  datasets: readonly QualityTrainingSource[],
  options: { fasttextArgs?: Record<string, string | number | boolean>; seed?: number; valFrac?: number } = {},
): ExecutorStep<TrainQualityStepConfig> {
  return new ExecutorStep<TrainQualityStepConfig>({
    name: `classifiers/${name}`,
    fn: trainQualityStep,
    config: {
      datasets: datasets.map((d) => ({ input_path: source(d.input), label: versioned(d.label), sampling_rate: versioned(d.samplingRate ?? 1), max_sample_size: versioned(d.maxSampleSize ?? null) })),
      output_path: THIS_OUTPUT_PATH,
      fasttext_args: versioned(options.fasttextArgs ?? {}),
      seed: versioned(options.seed ?? 0),
      val_frac: versioned(options.valFrac ?? 0.1),
    },
  });
}
