import { PipelineError } from '../../errors.js';
import { componentNameOf, describeSource, seqLenOf, tagsOf, tokenizerKey, tokenizerOf } from './tokenized-source.js';
import type { TokenizedSource, TokenizerRef } from './tokenized-source.js';

/** Levanter's hierarchical block shuffle: blocks of `io_block_size` sequences permuted within windows of `window_blocks` blocks. */
export interface BlockShuffle {
  io_block_size: number;
  window_blocks: number;
  perm_type?: 'feistel' | 'linear';
}

/** Weights by component name; they need not sum to 1 (Levanter normalizes them). */
export type MixtureWeights = Readonly<Record<string, number>>;

/** Weight stages: `[startStep, weights]` pairs, the first at step 0, each in force from its training step on. */
export type MixtureStages = ReadonlyArray<readonly [number, MixtureWeights]>;

/** Options of {@link mixture}: everything but the components and their weights. */
export interface MixtureOptions {
  /** Validation-only components by name (weight 0): Levanter reports loss and bpb for each, tagged with its name. @default {} */
  validation?: Readonly<Record<string, TokenizedSource>>;
  /** Weight stages replacing the fixed weights from a step on, e.g. `[[1000, { web: 0.5, code: 0.5 }]]`. @default none */
  stages?: MixtureStages;
  /** `true`: full permutation of each component; `false`: none; an object: Levanter's block shuffle. @default true (as Marin) */
  shuffle?: boolean | BlockShuffle;
  /** Permutation of the full shuffle. @default "feistel" */
  permutation_type?: 'feistel' | 'linear';
  /** Sequences per mixing block: each block holds every component's share exactly. @default 2048 (Levanter's) */
  mixture_block_size?: number;
  /** What to do when a component runs out: start it over, or stop at the first or the last exhausted one. @default "restart" */
  stop_strategy?: 'restart' | 'first_exhausted' | 'all_exhausted';
  /** The tokenizer, needed when no component is a tokenize step. @default the components' common tokenizer */
  tokenizer?: TokenizerRef;
  /** Tags of each component's evaluation metrics, besides its name. @default the `tags` of each tokenize step's config */
  tags?: Readonly<Record<string, readonly string[]>>;
}

/** One component of a mixture. */
export interface MixtureComponent {
  source: TokenizedSource;
  /** Extra tags of its evaluation metrics (Levanter adds the name). */
  tags: readonly string[];
}

/**
 * A data mixture: several token caches, the share of training sequences each one gets (fixed or in
 * stages over steps), validation-only caches, and how sequences are shuffled. Every check runs when it is
 * built, so a bad mixture fails before any step runs. Accepted wherever a tokenize step is
 * (`defaultTrain`, `trainLm`).
 */
export class LmMixture {
  /** Every component, training and validation-only, by name. */
  readonly components: Readonly<Record<string, MixtureComponent>>;
  /** Weight stages, the first at step 0; every component appears in every stage (0 for validation-only ones). */
  readonly stages: ReadonlyArray<readonly [number, Readonly<Record<string, number>>]>;
  readonly tokenizer: TokenizerRef;
  /** The sequence length every component was built for, or `null` when none records one. */
  readonly seqLen: number | null;
  readonly shuffle: boolean | BlockShuffle | null;
  readonly permutationType: 'feistel' | 'linear' | null;
  readonly mixtureBlockSize: number | null;
  readonly stopStrategy: 'restart' | 'first_exhausted' | 'all_exhausted' | null;

  /** @internal Use {@link mixture}, {@link lmMixtureDataConfig} or {@link lmVaryingMixtureDataConfig}. */
  constructor(init: {
    components: Record<string, MixtureComponent>;
    stages: Array<[number, Record<string, number>]>;
    tokenizer: TokenizerRef;
    seqLen: number | null;
    shuffle: boolean | BlockShuffle | null;
    permutationType: 'feistel' | 'linear' | null;
    mixtureBlockSize: number | null;
    stopStrategy: 'restart' | 'first_exhausted' | 'all_exhausted' | null;
  }) {
    this.components = Object.freeze({ ...init.components });
    this.stages = Object.freeze(init.stages.map(([step, w]) => Object.freeze([step, Object.freeze({ ...w })] as const)));
    this.tokenizer = init.tokenizer;
    this.seqLen = init.seqLen;
    this.shuffle = init.shuffle;
    this.permutationType = init.permutationType;
    this.mixtureBlockSize = init.mixtureBlockSize;
    this.stopStrategy = init.stopStrategy;
  }

  /** Names of the components some stage trains on (a weight above 0). */
  trainComponents(): string[] {
    return Object.keys(this.components).filter((name) => this.stages.some(([, w]) => (w[name] ?? 0) > 0));
  }

  /** Names of the validation-only components (weight 0 in every stage). */
  validationComponents(): string[] {
    const train = new Set(this.trainComponents());
    return Object.keys(this.components).filter((name) => !train.has(name));
  }

  /** The same mixture with `sets` added as validation-only components; names already present are kept as they are. */
  withValidation(sets: Readonly<Record<string, TokenizedSource>>, tags: Readonly<Record<string, readonly string[]>> = {}): LmMixture {
    const added = Object.fromEntries(Object.entries(sets).filter(([name]) => !(name in this.components)));
    if (Object.keys(added).length === 0) return this;
    const components: Record<string, MixtureComponent> = { ...this.components };
    for (const [name, source] of Object.entries(added)) components[name] = { source, tags: [...(tags[name] ?? tagsOf(source))] };
    checkTokenizers(components, this.tokenizer);
    return new LmMixture({
      ...this,
      components,
      stages: this.stages.map(([step, w]) => [step, { ...w, ...Object.fromEntries(Object.keys(added).map((n) => [n, 0])) }]),
      seqLen: checkSeqLens(components),
    });
  }
}

/**
 * A mixture of token caches with weights: `mixture({ web: [webTokens, 0.7], code: [codeTokens, 0.3] }, { validation })`.
 * Weights are relative (Levanter normalizes them); a weight of 0 makes a validation-only component.
 *
 * @example
 * const data = mixture({ web: [webTokens, 3], books: [bookTokens, 1] },
 *   { validation: defaultValidationSets('marin-tiny-bpe', { suite: 'offline' }), stages: [[100, { web: 1, books: 1 }]] });
 * defaultTrain('mix', data, llama_nano, train);
 * @throws {PipelineError} PIPELINE_MIXTURE_INVALID for a negative, non-finite or all-zero weight, a stage
 *   weight naming no component, stages out of order, or components with different tokenizers or `seq_len`s
 */
export function mixture(components: Readonly<Record<string, readonly [TokenizedSource, number]>>, options: MixtureOptions = {}): LmMixture {
  const sources = Object.fromEntries(Object.entries(components).map(([name, [source]]) => [name, source]));
  const weights = Object.fromEntries(Object.entries(components).map(([name, [, weight]]) => [name, weight]));
  return buildMixture(sources, [[0, weights], ...(options.stages ?? [])], options, true);
}

/** Options of Marin's {@link lmMixtureDataConfig} (its keyword names). */
export interface LmMixtureDataConfigOptions {
  permutation_type?: 'feistel' | 'linear';
  shuffle?: boolean | BlockShuffle;
  /** Components without a weight become validation-only (weight 0); otherwise they are an error. @default true */
  missing_weights_are_validation?: boolean;
  mixture_block_size?: number;
  stop_strategy?: 'restart' | 'first_exhausted' | 'all_exhausted';
  tokenizer?: TokenizerRef;
}

/**
 * Marin's `lm_mixture_data_config(components, weights, ...)`: the same mixture as {@link mixture}, with
 * components and weights in two maps.
 * @throws {PipelineError} PIPELINE_MIXTURE_INVALID as {@link mixture}, and for a weight naming no component
 */
export function lmMixtureDataConfig(
  components: Readonly<Record<string, TokenizedSource>>,
  weights: MixtureWeights,
  options: LmMixtureDataConfigOptions = {},
): LmMixture {
  return lmVaryingMixtureDataConfig(components, [[0, weights]], options);
}

/**
 * Marin's `lm_varying_mixture_data_config(components, weights_list, ...)`: weights in stages of
 * `[startStep, weights]`, the first at step 0. (Marin counts a stage's start in sequences; here it is a
 * training step, which is what Levanter's config reads.)
 * @throws {PipelineError} PIPELINE_MIXTURE_INVALID as {@link mixture}
 */
export function lmVaryingMixtureDataConfig(
  components: Readonly<Record<string, TokenizedSource>>,
  weightsList: MixtureStages,
  options: LmMixtureDataConfigOptions = {},
): LmMixture {
  return buildMixture({ ...components }, weightsList, { ...options, validation: {} }, options.missing_weights_are_validation ?? true);
}

function invalid(message: string, details: Record<string, unknown>): PipelineError {
  return new PipelineError('PIPELINE_MIXTURE_INVALID', message, { details });
}

function buildMixture(
  sources: Record<string, TokenizedSource>,
  rawStages: MixtureStages,
  options: MixtureOptions,
  missingAreValidation: boolean,
): LmMixture {
  const names = Object.keys(sources);
  if (names.length === 0) throw invalid('a mixture needs at least one component', { field: 'components' });
  const validation = options.validation ?? {};
  for (const name of Object.keys(validation)) {
    if (name in sources) throw invalid(`validation set "${name}" has the name of a training component; rename one of them`, { field: 'validation', component: name });
  }
  const stages = checkStages(rawStages, names, missingAreValidation);
  const components: Record<string, MixtureComponent> = {};
  for (const [name, source] of Object.entries({ ...sources, ...validation })) components[name] = { source, tags: [...(options.tags?.[name] ?? tagsOf(source))] };
  for (const stage of stages) for (const name of Object.keys(validation)) stage[1][name] = 0;
  const tokenizer = checkTokenizers(components, options.tokenizer);
  if (options.mixture_block_size !== undefined && !(Number.isInteger(options.mixture_block_size) && options.mixture_block_size > 0 && options.mixture_block_size < 65536)) {
    throw invalid(`mixture_block_size must be a whole number from 1 to 65535, got ${options.mixture_block_size}`, { field: 'mixture_block_size' });
  }
  return new LmMixture({
    components,
    stages,
    tokenizer,
    seqLen: checkSeqLens(components),
    shuffle: options.shuffle ?? true,
    permutationType: options.permutation_type ?? 'feistel',
    mixtureBlockSize: options.mixture_block_size ?? null,
    stopStrategy: options.stop_strategy ?? null,
  });
}

function checkStages(rawStages: MixtureStages, names: readonly string[], missingAreValidation: boolean): Array<[number, Record<string, number>]> {
  if (rawStages.length === 0) throw invalid('a mixture needs weights', { field: 'weights' });
  const stages: Array<[number, Record<string, number>]> = [];
  let previous = -1;
  for (const [index, [start, weights]] of rawStages.entries()) {
    const field = index === 0 ? 'weights' : `stages.${index - 1}`;
    if (!Number.isInteger(start) || start < 0) throw invalid(`weight stage ${index} starts at step ${start}; a start is a whole step number`, { field });
    if (index === 0 && start !== 0) throw invalid(`the first weight stage must start at step 0, not ${start}`, { field });
    if (start <= previous) throw invalid(`weight stages must start at increasing steps: step ${start} comes after step ${previous}`, { field });
    previous = start;
    const stage: Record<string, number> = {};
    for (const [name, weight] of Object.entries(weights)) {
      if (!names.includes(name)) {
        throw invalid(`weight "${name}" names no component of the mixture (components: ${names.join(', ')})`, { field: `${field}.${name}`, component: name });
      }
      if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
        throw invalid(`weight of "${name}" is ${String(weight)}; weights are finite numbers of at least 0`, { field: `${field}.${name}`, component: name });
      }
      stage[name] = weight;
    }
    for (const name of names) {
      if (name in stage) continue;
      if (!missingAreValidation) throw invalid(`component "${name}" has no weight`, { field: `${field}.${name}`, component: name });
      stage[name] = 0;
    }
    if (Object.values(stage).every((w) => w === 0)) {
      throw invalid(`every weight of ${index === 0 ? 'the mixture' : `weight stage ${index} (step ${start})`} is 0; at least one component must have a weight above 0`, { field });
    }
    stages.push([start, stage]);
  }
  return stages;
}

function checkTokenizers(components: Record<string, MixtureComponent>, given: TokenizerRef | undefined): TokenizerRef {
  const found = new Map<string, { tokenizer: TokenizerRef; names: string[] }>();
  for (const [name, { source }] of Object.entries(components)) {
    const tokenizer = tokenizerOf(source);
    if (tokenizer === undefined) continue;
    const key = tokenizerKey(tokenizer);
    const entry = found.get(key) ?? { tokenizer, names: [] };
    entry.names.push(name);
    found.set(key, entry);
  }
  if (given !== undefined && found.size > 0 && !found.has(tokenizerKey(given))) {
    const [key, { names }] = [...found.entries()][0] as [string, { names: string[] }];
    throw invalid(`the mixture's tokenizer ${tokenizerKey(given)} differs from ${key} of component "${names[0]}"; every component must use one tokenizer`, {
      field: 'tokenizer',
      component: names[0],
    });
  }
  if (found.size > 1) {
    const list = [...found.entries()].map(([key, { names }]) => `${names.join(', ')}: ${key}`).join('; ');
    throw invalid(`the mixture's components use different tokenizers (${list}); tokenize every component with one tokenizer`, {
      field: 'tokenizer',
      tokenizers: Object.fromEntries([...found.entries()].flatMap(([key, { names }]) => names.map((n) => [n, key]))),
    });
  }
  const tokenizer = given ?? [...found.values()][0]?.tokenizer;
  if (tokenizer === undefined) {
    const first = Object.values(components)[0];
    throw invalid(`cannot tell the tokenizer of the mixture: no component is a tokenize step (e.g. ${first === undefined ? 'none' : describeSource(first.source)}); pass options.tokenizer`, {
      field: 'tokenizer',
    });
  }
  return tokenizer;
}

function checkSeqLens(components: Record<string, MixtureComponent>): number | null {
  let seen: { name: string; seqLen: number } | null = null;
  for (const [name, { source }] of Object.entries(components)) {
    const seqLen = seqLenOf(source);
    if (seqLen === null) continue;
    if (seen !== null && seen.seqLen !== seqLen) {
      throw invalid(`component "${name}" was built for seq_len ${seqLen} but "${seen.name}" for ${seen.seqLen}; every component must have one seq_len`, {
        field: 'seq_len',
        component: name,
        seq_lens: { [seen.name]: seen.seqLen, [name]: seqLen },
      });
    }
    seen ??= { name, seqLen };
  }
  return seen?.seqLen ?? null;
}

/** A single token cache as a mixture of one component named after it (weight 1). */
export function singleSourceMixture(source: TokenizedSource, name: string = componentNameOf(source), tokenizer?: TokenizerRef, tags: readonly string[] = []): LmMixture {
  const components = { [name]: { source, tags: [...tags] } };
  return new LmMixture({
    components,
    stages: [[0, { [name]: 1 }]],
    tokenizer: checkTokenizers(components, tokenizer),
    seqLen: checkSeqLens(components),
    // Levanter's own defaults, as for a single cache before mixtures existed.
    shuffle: null,
    permutationType: null,
    mixtureBlockSize: null,
    stopStrategy: null,
  });
}
