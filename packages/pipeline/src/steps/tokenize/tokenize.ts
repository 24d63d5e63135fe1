import { exists, prefixJoin } from '@marin/rigging';
import type { StepContext } from '@marin/executor';
import { writeShardedLedger } from '../../cache/index.js';
import { runParts } from '../../fanout/run-parts.js';
import { assertWritable } from '../writable-check.js';
import { discoverInputs, groupIntoParts } from './input-discovery.js';
import { parseTokenizeConfig } from './tokenize-config.js';
import type { TokenizeConfig } from './tokenize-config.js';
import { tokenizePart } from './tokenize-part.js';
import type { TokenizePartArgs } from './tokenize-part.js';

/** The splits a tokenize step writes, each a directory under `cache_path`. */
export const SPLITS = ['train', 'validation'] as const;
/** A split of a token cache. */
export type Split = (typeof SPLITS)[number];

/**
 * The tokenize step: each split's documents become a Levanter token cache in the sharded layout,
 * `<cache_path>/<split>/part-NNNNN-of-MMMMM/` plus the split's `shard_ledger.json`, written last. Parts
 * run in this process, or as one Fray job each when `resources` is set; finished parts and splits are
 * skipped, so a rerun resumes.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID, PIPELINE_INPUT_NOT_FOUND, PIPELINE_UNSUPPORTED_FORMAT,
 *   PIPELINE_OUTPUT_NOT_WRITABLE, PIPELINE_INPUT_INVALID, PIPELINE_TOKENIZER_INVALID
 */
export async function tokenize(rawConfig: unknown, ctx: Pick<StepContext, 'signal'>): Promise<void> {
  const config = parseTokenizeConfig(rawConfig);
  await assertWritable(config.cache_path);
  for (const split of SPLITS) {
    const paths = split === 'train' ? config.train_paths : config.validation_paths;
    if (paths.length === 0) continue;
    await tokenizeSplit(config, split, paths, ctx.signal);
  }
}

async function tokenizeSplit(config: TokenizeConfig, split: Split, paths: readonly string[], signal: AbortSignal): Promise<void> {
  const splitUrl = prefixJoin(config.cache_path, split);
  if (await exists(prefixJoin(splitUrl, 'shard_ledger.json'))) return;
  const files = await discoverInputs(paths);
  const groups = groupIntoParts(files, config.max_workers, config.min_part_bytes);
  const width = (n: number): string => String(n).padStart(5, '0');
  const parts = groups.map((group, i) => {
    const name = `part-${width(i)}-of-${width(groups.length)}`;
    const args: TokenizePartArgs = {
      files: group.map((f) => f.url),
      part_url: prefixJoin(splitUrl, name),
      tokenizer: config.tokenizer,
      tokenizer_name: config.tokenizer_name,
      text_key: config.format.text_key,
      enforce_bos: config.enforce_bos,
      enforce_eos: config.enforce_eos,
      sample_count: config.sample_count,
      compression: config.compression,
    };
    return { name, args };
  });
  await runParts({
    parts,
    run: tokenizePart,
    exportName: 'tokenizePart',
    resources: config.resources,
    maxParallelism: config.max_workers,
    signal,
    jobNamePrefix: `tokenize-${split}`,
  });
  await writeShardedLedger(splitUrl, parts.map((p) => p.name));
}
