import { ExecutorStep, InputName, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import type { OutputName, VersionedValue } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { tokenize } from './tokenize.js';

/** Where documents come from: a step (its whole output), a reference into one, or a path/URL. */
export type DocumentSource = ExecutorStep | InputName | string;

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
 * @param tokenizer a shipped tokenizer's name (`"marin-tiny-bpe"`), a directory URL holding `tokenizer.json`, or the
 *   step (or a reference into a step) that downloaded one
 * @example
 * const docs = defaultTransform('quickstart-train', outputPathOf(raw, 'train'));
 * const tokens = defaultTokenize('quickstart', docs, 'marin-tiny-bpe', { validation: docsVal });
 */
export function defaultTokenize(
  name: string,
  dataset: DocumentSource | DocumentSource[],
  tokenizer: string | ExecutorStep | InputName,
  options: DefaultTokenizeOptions = {},
): ExecutorStep<DefaultTokenizeConfig> {
  const isValidation = options.isValidation ?? false;
  const resources = options.resources ?? null;
  return new ExecutorStep<DefaultTokenizeConfig>({
    name: `tokenized/${name}`,
    fn: tokenize,
    config: {
      train_paths: isValidation ? [] : list(dataset),
      validation_paths: isValidation ? list(dataset) : list(options.validation),
      cache_path: THIS_OUTPUT_PATH,
      tokenizer: typeof tokenizer === 'string' ? versioned(tokenizer) : tokenizer,
      tags: [],
      format: versioned({ type: 'text', text_key: options.textKey ?? 'text' }),
      sample_count: versioned(options.sampleCount ?? null),
      max_workers: options.maxWorkers ?? 4,
      resources: resources === null ? null : (resources instanceof ResourceConfig ? resources : new ResourceConfig(resources)).toOptions() as ResourceOptions,
      compression: options.compression ?? 'lz4',
    },
  });
}
