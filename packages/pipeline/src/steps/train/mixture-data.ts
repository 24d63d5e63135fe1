import { float, versioned } from '@marin/executor';
import type { FloatValue, VersionedValue } from '@marin/executor';
import { exists, prefixJoin } from '@marin/rigging';
import { z } from 'zod';
import { INPUT_IDS_FIELD, readFinishedLedger } from '../../cache/cache-ledger.js';
import { PipelineError } from '../../errors.js';
import type { LevanterConfigValue } from '../../levanter/levanter-yaml.js';
import type { LmMixture } from './mixture.js';
import type { TokenizedSource } from './tokenized-source.js';

const Weights = z.record(z.string().min(1), z.number().nonnegative().finite());

/** The mixture part of a train step's config, every cache resolved to a path (Levanter's `LmDataConfig` names). */
export const MixtureDataSchema = z.strictObject({
  /** Each component's token cache (`<cache_path>/train`, `<cache_path>/validation`) and the tags of its metrics. */
  components: z.record(z.string().min(1), z.strictObject({ cache_path: z.string().min(1), tags: z.array(z.string().min(1)).default([]) })),
  /** Fixed weights, or `[startStep, weights]` stages (the first at step 0). */
  train_weights: z.union([Weights, z.array(z.tuple([z.number().int().nonnegative(), Weights])).min(1)]),
  /** `null` keeps Levanter's default (its block shuffle). */
  shuffle: z.union([z.boolean(), z.strictObject({ io_block_size: z.number().int().positive(), window_blocks: z.number().int().positive(), perm_type: z.enum(['feistel', 'linear']).optional() })]).nullable().default(null),
  permutation_type: z.enum(['feistel', 'linear']).nullable().default(null),
  mixture_block_size: z.number().int().positive().max(65535).nullable().default(null),
  stop_strategy: z.enum(['restart', 'first_exhausted', 'all_exhausted']).nullable().default(null),
});

/** The validated mixture of a train step. */
export type MixtureData = z.output<typeof MixtureDataSchema>;

/** Levanter's `mixture_block_size` default. */
export const LEVANTER_MIXTURE_BLOCK_SIZE = 2048;

/** The mixture as a step config before resolution: caches are steps or paths, the rest versioned. */
export interface MixtureStepData {
  components: Record<string, { cache_path: TokenizedSource; tags: VersionedValue<string[]> }>;
  train_weights: VersionedValue<unknown>;
  shuffle: VersionedValue<unknown>;
  permutation_type: VersionedValue<string | null>;
  mixture_block_size: VersionedValue<number | null>;
  stop_strategy: VersionedValue<string | null>;
}

/**
 * The step-config form of `m`: its caches as dependencies, its weights, shuffle and tags versioned
 * (weights hash as Python floats, as in Marin). `runTags` are added to the tags of training components.
 */
export function mixtureStepData(m: LmMixture, runTags: readonly string[]): MixtureStepData {
  const train = new Set(m.trainComponents());
  const floats = (w: Readonly<Record<string, number>>): Record<string, FloatValue | number> =>
    Object.fromEntries(Object.entries(w).map(([k, v]) => [k, Number.isInteger(v) ? float(v) : v]));
  return {
    components: Object.fromEntries(
      Object.entries(m.components).map(([name, c]) => [name, { cache_path: c.source, tags: versioned([...c.tags, ...(train.has(name) ? runTags : [])]) }]),
    ),
    train_weights: versioned(m.stages.length === 1 ? floats(m.stages[0]?.[1] ?? {}) : m.stages.map(([step, w]) => [step, floats(w)])),
    shuffle: versioned(m.shuffle),
    permutation_type: versioned(m.permutationType),
    mixture_block_size: versioned(m.mixtureBlockSize),
    stop_strategy: versioned(m.stopStrategy),
  };
}

/** Weight stages of `data`, the first at step 0. */
export function weightStages(data: MixtureData): Array<[number, Record<string, number>]> {
  return Array.isArray(data.train_weights) ? data.train_weights.map(([s, w]) => [s, w]) : [[0, data.train_weights]];
}

/** Names of the components some stage trains on. */
export function trainComponentNames(data: MixtureData): string[] {
  const stages = weightStages(data);
  return Object.keys(data.components).filter((name) => stages.some(([, w]) => (w[name] ?? 0) > 0));
}

/**
 * Checks what Levanter would only find out after it started: weights naming no component or all zero,
 * and stage starts that are not whole mixing blocks (Levanter switches weights only at a block boundary:
 * `startStep × batchSize` must be a multiple of `mixture_block_size`).
 * @throws {PipelineError} PIPELINE_MIXTURE_INVALID
 */
export function checkMixtureData(data: MixtureData, trainBatchSize: number): void {
  const names = Object.keys(data.components);
  const blockSize = data.mixture_block_size ?? LEVANTER_MIXTURE_BLOCK_SIZE;
  for (const [index, [start, weights]] of weightStages(data).entries()) {
    const missing = Object.keys(weights).find((name) => !names.includes(name));
    if (missing !== undefined) {
      throw new PipelineError('PIPELINE_MIXTURE_INVALID', `weight "${missing}" names no component of the mixture (components: ${names.join(', ')})`, { details: { field: 'train_weights', component: missing } });
    }
    if (Object.values(weights).every((w) => w === 0)) {
      throw new PipelineError('PIPELINE_MIXTURE_INVALID', `every weight of weight stage ${index} is 0`, { details: { field: 'train_weights' } });
    }
    if ((start * trainBatchSize) % blockSize !== 0) {
      throw new PipelineError(
        'PIPELINE_MIXTURE_INVALID',
        `weight stage ${index} starts at step ${start}, which is sequence ${start * trainBatchSize} with batch size ${trainBatchSize}; Levanter changes weights only every mixture_block_size (${blockSize}) sequences: start it at a multiple of ${blockSize / gcd(blockSize, trainBatchSize)} steps or lower mixture_block_size`,
        { details: { field: 'train_weights', stage: index, start_step: start, mixture_block_size: blockSize } },
      );
    }
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** What a component's cache holds. */
export interface ComponentCache {
  /** Tokens of its train split (0 for a validation-only component). */
  trainTokens: number;
  hasValidation: boolean;
}

/**
 * Fails fast on a cache Levanter could not load: a training component without a finished train split, a
 * validation-only component (a validation set) without a finished validation split.
 * @throws {PipelineError} PIPELINE_CACHE_INVALID naming the component (`details.component`)
 */
export async function checkMixtureCaches(data: MixtureData): Promise<Record<string, ComponentCache>> {
  const train = new Set(trainComponentNames(data));
  const out: Record<string, ComponentCache> = {};
  for (const [name, { cache_path }] of Object.entries(data.components)) {
    const validation = prefixJoin(cache_path, 'validation');
    const hasValidation = await exists(prefixJoin(validation, 'shard_ledger.json'));
    if (!train.has(name) && !hasValidation) {
      throw new PipelineError('PIPELINE_CACHE_INVALID', `validation set "${name}" has no validation cache at "${validation}"; run its tokenize step (or fix its path) first`, {
        details: { component: name, path: validation },
      });
    }
    try {
      const trainTokens = train.has(name) ? ((await readFinishedLedger(prefixJoin(cache_path, 'train'))).field_counts[INPUT_IDS_FIELD] ?? 0) : 0;
      if (hasValidation) await readFinishedLedger(validation);
      out[name] = { trainTokens, hasValidation };
    } catch (e) {
      if (!PipelineError.is(e)) throw e;
      throw new PipelineError(e.code, `mixture component "${name}": ${e.message}`, { cause: e, details: { ...e.details, component: name } });
    }
  }
  return out;
}

/** Paths of `data` as Levanter sees them. */
export function mapCachePaths(data: MixtureData, toLevanter: (path: string) => string): MixtureData {
  return { ...data, components: Object.fromEntries(Object.entries(data.components).map(([n, c]) => [n, { ...c, cache_path: toLevanter(c.cache_path) }])) };
}

/**
 * Levanter's `LmDataConfig` for a mixture: one `cached` component per cache with no source (Levanter loads,
 * never builds), `train_weights` (a map, or `[step, weights]` stages), and the shuffle, permutation, block
 * size and stop strategy when they are set.
 */
export function levanterMixtureSection(data: MixtureData, tokenizerPath: string, caches: Record<string, ComponentCache>): { [key: string]: LevanterConfigValue } {
  const components: { [key: string]: LevanterConfigValue } = {};
  for (const [name, c] of Object.entries(data.components)) {
    components[name] = {
      type: 'cached',
      cache_dir: c.cache_path,
      // With no source Levanter fails on a missing split; a source without URLs makes it skip the split
      // instead, and still never builds anything.
      source: caches[name]?.hasValidation === true ? null : { type: 'url', train_urls: [], validation_urls: [] },
      tags: c.tags,
    };
  }
  return {
    tokenizer: tokenizerPath,
    cache_dir: null,
    auto_build_caches: false,
    shuffle: data.shuffle ?? undefined,
    permutation_type: data.permutation_type ?? undefined,
    mixture_block_size: data.mixture_block_size ?? undefined,
    stop_strategy: data.stop_strategy ?? undefined,
    components,
    train_weights: Array.isArray(data.train_weights) ? data.train_weights.map(([s, w]) => [s, w]) : data.train_weights,
  };
}
