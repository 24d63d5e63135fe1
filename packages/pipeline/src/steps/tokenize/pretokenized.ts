import { ExecutorStep, InputName, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import type { OutputName, StepContext, VersionedValue } from '@marin/executor';
import { ls, prefixJoin } from '@marin/rigging';
import { z } from 'zod';
import { checkTokenCache } from '../../cache/cache-check.js';
import type { TokenCacheCheck } from '../../cache/cache-check.js';
import { LEDGER_FILE } from '../../cache/cache-ledger.js';
import { PipelineError } from '../../errors.js';
import { download } from '../download/download.js';
import type { DownloadOptions } from '../download/download.js';
import { resolveTokenizerSource } from './default-tokenize.js';
import type { TokenizerSource } from './default-tokenize.js';
import { SPLITS } from './tokenize.js';

/** Options of {@link pretokenized}. */
export interface PretokenizedOptions {
  /** The step is `tokenized/{name}`. @default the dataset id with `/` as `--` */
  name?: string;
  /**
   * The tokenizer training uses with this cache (any form `defaultTokenize` takes); `defaultTrain` reads it from
   * here. Versioned. @default null: pass `tokenizer` to `defaultTrain` instead
   */
  tokenizer?: TokenizerSource | null;
}

/** The config a {@link pretokenized} step carries; `cache_path` and `tokenizer` are what training reads. */
export interface PretokenizedConfig {
  hf_dataset_id: VersionedValue<string>;
  revision: VersionedValue<string>;
  cache_path: OutputName;
  tokenizer: VersionedValue<string> | ExecutorStep | InputName | null;
  tokenizer_name: string | null;
}

const FULL_SHA = /^[0-9a-f]{40}$/;

/**
 * A step `tokenized/{name}` whose output is a Levanter token cache published as a Hugging Face dataset
 * repository (the layout the tokenize step writes: `train/` and/or `validation/`, each a `shard_ledger.json`
 * with its parts or arrays), downloaded at a pinned revision through the download stage and checked before
 * the step succeeds ({@link checkPretokenized}). Use it wherever a tokenize step is accepted:
 * `defaultTrain('run', pretokenized('org/cache', sha, { tokenizer }), model, hparams)`.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID when `revision` is not a full 40-hex commit sha, or the
 *   tokenizer is a hub id without a revision
 */
export function pretokenized(hubDatasetId: string, revision: string, options: PretokenizedOptions = {}): ExecutorStep<PretokenizedConfig> {
  if (typeof revision !== 'string' || !FULL_SHA.test(revision)) {
    throw new PipelineError(
      'PIPELINE_CONFIG_INVALID',
      `pretokenized("${hubDatasetId}") needs a pinned revision: a full 40-hex commit sha, got ${JSON.stringify(revision ?? null)}`,
      { details: { field: 'revision', hf_dataset_id: hubDatasetId, issues: [{ path: ['revision'], message: 'a full commit sha is required' }] } },
    );
  }
  const tokenizer = options.tokenizer === undefined || options.tokenizer === null ? null : resolveTokenizerSource(options.tokenizer);
  return new ExecutorStep<PretokenizedConfig>({
    name: `tokenized/${options.name ?? hubDatasetId.replace('/', '--')}`,
    fn: downloadPretokenized,
    config: {
      hf_dataset_id: versioned(hubDatasetId),
      revision: versioned(revision),
      cache_path: THIS_OUTPUT_PATH,
      tokenizer: tokenizer?.tokenizer ?? null,
      tokenizer_name: tokenizer?.name ?? null,
    },
  });
}

const PretokenizedStepConfigSchema = z.looseObject({
  hf_dataset_id: z.string().min(1),
  revision: z.string().min(1),
  cache_path: z.string().min(1),
});

/** What a {@link pretokenized} step found: each split's rows, tokens and recorded tokenizer. */
export interface PretokenizedResult {
  splits: Partial<Record<(typeof SPLITS)[number], TokenCacheCheck>>;
}

/** The step function: mirrors the repository into `cache_path`, then checks it. */
export async function downloadPretokenized(rawConfig: unknown, ctx: StepContext, options: DownloadOptions = {}): Promise<PretokenizedResult> {
  const config = PretokenizedStepConfigSchema.parse(rawConfig);
  await download({ hf_dataset_id: config.hf_dataset_id, revision: config.revision, gcs_output_path: config.cache_path }, ctx, options);
  return checkPretokenized(config.cache_path);
}

/**
 * Checks a downloaded token cache: at least one split (`train`, `validation`) is present, and every split
 * present passes {@link checkTokenCache} (finished ledger, recorded tokenizer, parts and arrays consistent
 * with the ledger's counts). A split directory holding files but no ledger is an incomplete upload.
 *
 * @throws {PipelineError} PIPELINE_CACHE_INVALID naming the missing or inconsistent file in `details.path`
 */
export async function checkPretokenized(cachePath: string): Promise<PretokenizedResult> {
  const dirs = new Set((await ls(cachePath)).filter((e) => e.type === 'directory').map((e) => e.url.replace(/\/+$/, '').split('/').at(-1)));
  const result: PretokenizedResult = { splits: {} };
  for (const split of SPLITS) {
    const splitUrl = prefixJoin(cachePath, split);
    if (!dirs.has(split)) continue;
    result.splits[split] = await checkTokenCache(splitUrl);
  }
  if (Object.keys(result.splits).length === 0) {
    const path = prefixJoin(cachePath, `train/${LEDGER_FILE}`);
    throw new PipelineError('PIPELINE_CACHE_INVALID', `"${cachePath}" holds no token cache: neither "train/" nor "validation/" exists (expected "${path}")`, {
      details: { path },
    });
  }
  return result;
}
