import { ExecutorStep, InputName, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import type { OutputName, VersionedValue } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { hubTokenizerName, isHubTokenizerRef, parseHubTokenizer } from '../../tokenizer/hub-tokenizer.js';
import type { HubTokenizerRef } from '../../tokenizer/hub-tokenizer.js';
import { hubTokenizerDownload } from './hub-tokenizer-download.js';
import { tokenize } from './tokenize.js';

/** Where documents come from: a step (its whole output), a reference into one, or a path/URL. */
export type DocumentSource = ExecutorStep | InputName | string;

/**
 * A tokenizer: a shipped tokenizer's name, a directory (local or any storage URL) with `tokenizer.json`, a
 * step (or a reference into one) that downloaded one, or a pinned hub model: `{ hubModel, revision }` or
 * `'org/name@<sha>'`.
 */
export type TokenizerSource = string | HubTokenizerRef | ExecutorStep | InputName;

/** Options of {@link defaultTokenize}. */
export interface DefaultTokenizeOptions {
  /** The record field holding the text. @default "text" */
  textKey?: string;
  /** Keep only the first N records of each input file (versioned). @default null */
  sampleCount?: number | null;
  /** Treat `dataset` as validation data instead of training data. @default false */
  isValidation?: boolean;
  /** Validation documents written to the same cache's `validation` split. @default none */
  validation?: DocumentSource | DocumentSource[];
  /**
   * Resources of each part's Fray job; omit to tokenize in the executor's process. Never versioned.
   * @default null
   */
  resources?: ResourceConfig | ResourceOptions | null;
  /** Parts a split is cut into at most. @default 4 */
  maxWorkers?: number;
  /** Blosc compression of the arrays. @default "lz4" */
  compression?: 'lz4' | 'none';
}

/** The config `defaultTokenize` builds (Marin's `TokenizeConfig` names). */
export interface DefaultTokenizeConfig {
  train_paths: DocumentSource[];
  validation_paths: DocumentSource[];
  cache_path: OutputName;
  tokenizer: VersionedValue<string> | ExecutorStep | InputName;
  /** The name recorded in the cache's metadata for a hub tokenizer (`org/name@<sha>`); not versioned. */
  tokenizer_name: string | null;
  tags: string[];
  format: VersionedValue<{ type: 'text'; text_key: string }>;
  sample_count: VersionedValue<number | null>;
  max_workers: number;
  resources: ResourceOptions | null;
  compression: 'lz4' | 'none';
}

function list(x: DocumentSource | DocumentSource[] | undefined): DocumentSource[] {
  return x === undefined ? [] : Array.isArray(x) ? x : [x];
}

/**
 * A step `tokenized/{name}` that tokenizes `dataset` with `tokenizer` into a Levanter token cache (train split,
 * or validation with `isValidation`; `validation` adds a validation split to the same cache). The tokenizer,
 * format and sample count are versioned, so changing any of them gives a new output path; resources,
 * worker counts and compression are not.
 *
 * A pinned hub tokenizer is fetched once by a download step of its own ({@link hubTokenizerDownload}: only
 * the tokenizer files), which this step depends on; its repository id and revision enter this step's
 * version, its local path does not.
 *
 * @param tokenizer a shipped tokenizer's name (`"marin-tiny-bpe"`), a directory URL holding `tokenizer.json`, the
 *   step (or a reference into a step) that downloaded one, or a hub model pinned to a commit:
 *   `{ hubModel: 'meta-llama/Llama-3.1-8B', revision: '<40-hex sha>' }` (or `'meta-llama/Llama-3.1-8B@<sha>'`)
 * @example
 * const docs = defaultTransform('quickstart-train', outputPathOf(raw, 'train'));
 * const tokens = defaultTokenize('quickstart', docs, 'marin-tiny-bpe', { validation: docsVal });
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for a hub model id without a pinned revision (before any job)
 */
export function defaultTokenize(
  name: string,
  dataset: DocumentSource | DocumentSource[],
  tokenizer: TokenizerSource,
  options: DefaultTokenizeOptions = {},
): ExecutorStep<DefaultTokenizeConfig> {
  const isValidation = options.isValidation ?? false;
  const { tokenizer: tokenizerField, name: tokenizerName } = resolveTokenizerSource(tokenizer);
  const resources = options.resources ?? null;
  return new ExecutorStep<DefaultTokenizeConfig>({
    name: `tokenized/${name}`,
    fn: tokenize,
    config: {
      train_paths: isValidation ? [] : list(dataset),
      validation_paths: isValidation ? list(dataset) : list(options.validation),
      cache_path: THIS_OUTPUT_PATH,
      tokenizer: tokenizerField,
      tokenizer_name: tokenizerName,
      tags: [],
      format: versioned({ type: 'text', text_key: options.textKey ?? 'text' }),
      sample_count: versioned(options.sampleCount ?? null),
      max_workers: options.maxWorkers ?? 4,
      resources: resources === null ? null : (resources instanceof ResourceConfig ? resources : new ResourceConfig(resources)).toOptions() as ResourceOptions,
      compression: options.compression ?? 'lz4',
    },
  });
}

/**
 * The config value of a tokenizer source: a location string becomes a versioned value, a step or reference
 * stays as it is, and a pinned hub tokenizer becomes its download step, with `org/name@<sha>` as the name
 * recorded in caches.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for a hub model id without a pinned revision
 */
export function resolveTokenizerSource(tokenizer: TokenizerSource): {
  tokenizer: VersionedValue<string> | ExecutorStep | InputName;
  name: string | null;
} {
  if (tokenizer instanceof ExecutorStep || tokenizer instanceof InputName) return { tokenizer, name: null };
  const hub = parseHubTokenizer(tokenizer);
  if (hub === null) return { tokenizer: versioned(isHubTokenizerRef(tokenizer) ? tokenizer.hubModel : tokenizer), name: null };
  return { tokenizer: hubTokenizerDownload(hub), name: hubTokenizerName(hub) };
}
