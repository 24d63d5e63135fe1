import type { JsonValue } from '@marin/fray';
import { exists, prefixJoin } from '@marin/rigging';
import { createCacheWriter } from '../../cache/index.js';
import { readFileRecords } from '../../formats/record-reader.js';
import { PipelineError } from '../../errors.js';
import { tokenizerLocation } from '../../assets.js';
import { loadLevanterTokenizer } from '../../tokenizer/levanter-tokenizer.js';

/** The JSON arguments of one tokenize part: what a Fray job receives. */
export interface TokenizePartArgs {
  [key: string]: JsonValue;
  /** Input files, in order; their records become the part's rows in this order. */
  files: string[];
  /** The part's cache directory, e.g. `<cache>/train/part-00000-of-00004`. */
  part_url: string;
  /** A tokenizer directory (local or any storage URL) or a shipped tokenizer's name. */
  tokenizer: string;
  /** The tokenizer's name in the part's metadata; `null` records the location. */
  tokenizer_name: string | null;
  text_key: string;
  enforce_bos: boolean;
  enforce_eos: boolean;
  sample_count: number | null;
  compression: 'lz4' | 'none';
}

// Documents are encoded in batches so the tokenizer's Rust threads have work to share, while memory
// stays bounded by one batch of texts and ids.
const BATCH_DOCS = 512;
const BATCH_CHARS = 8_000_000;

/** The file a part writes last: a part is finished exactly when it exists. */
export const PART_LEDGER = 'shard_ledger.json';

/**
 * Tokenizes one part into a consolidated Levanter cache at `part_url`: rows in file and record order,
 * each `[bos] + encode(text + " " + eos)`. A finished part (its ledger exists) is left alone, so
 * reruns and retried jobs resume; an unfinished one is written again from the start.
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID for a record without the text key (or with a non-string one),
 *   naming the file and line; PIPELINE_TOKENIZER_INVALID for a bad tokenizer
 */
export async function tokenizePart(args: TokenizePartArgs, signal?: AbortSignal): Promise<void> {
  if (await exists(prefixJoin(args.part_url, PART_LEDGER))) return;
  const tokenizer = await loadLevanterTokenizer(tokenizerLocation(args.tokenizer), {
    enforceBos: args.enforce_bos,
    enforceEos: args.enforce_eos,
    ...(args.tokenizer_name === null ? {} : { name: args.tokenizer_name }),
  });
  const writer = await createCacheWriter(args.part_url, {
    compression: args.compression,
    shardName: args.part_url.slice(args.part_url.lastIndexOf('/') + 1),
    preprocessorMetadata: { ...tokenizer.preprocessorMetadata },
  });
  let texts: string[] = [];
  let chars = 0;
  const flush = async (): Promise<void> => {
    if (texts.length === 0) return;
    for (const ids of await tokenizer.encodeDocuments(texts)) await writer.append(ids);
    texts = [];
    chars = 0;
  };
  try {
    for (const file of args.files) {
      let kept = 0;
      // parquet: only the text column is decoded; JSON lines are parsed whole
      for await (const { record, line } of readFileRecords(file, { columns: [args.text_key], ...(signal === undefined ? {} : { signal }) })) {
        if (args.sample_count !== null && kept >= args.sample_count) break;
        const text = record[args.text_key];
        if (typeof text !== 'string') {
          throw new PipelineError(
            'PIPELINE_INPUT_INVALID',
            `${file} line ${line} has no string "${args.text_key}" field; set format.text_key to the field holding the text`,
            { details: { path: file, line, text_key: args.text_key } },
          );
        }
        kept += 1;
        texts.push(text);
        chars += text.length;
        if (texts.length >= BATCH_DOCS || chars >= BATCH_CHARS) await flush();
      }
    }
    await flush();
    await writer.finish();
  } catch (e) {
    await writer.abort();
    throw e;
  }
}
