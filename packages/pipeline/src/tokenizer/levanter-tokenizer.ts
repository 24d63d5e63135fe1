import { RiggingError, readText } from '@marin/rigging';
import { Tokenizer } from 'tokenizers';
import { z } from 'zod';
import { PipelineError } from '../errors.js';
import { LONG_STRING_WORKAROUND, splitLongString } from './long-string-split.js';
import { safeSplitForTokenizer } from './safe-split.js';
import { resolveSpecialToken } from './tokenizer-config.js';
import type { TokenizerConfigJson } from './tokenizer-config.js';

/** Options of {@link loadLevanterTokenizer}; the defaults are those of Levanter's text format. */
export const LevanterTokenizerOptionsSchema = z.strictObject({
  /** The tokenizer's name in cache metadata (Levanter's `name_or_path`). @default the location as given */
  name: z.string().min(1).optional(),
  /** Prepend the BOS id when the tokenizer defines a BOS token. @default true */
  enforceBos: z.boolean().default(true),
  /** Append `" " + eos_token` to each text when the tokenizer defines an EOS token. @default true */
  enforceEos: z.boolean().default(true),
  /**
   * `BatchTokenizer`'s `long_string_workaround`: also cut texts longer than `workaroundLen` code points
   * before the next whitespace. Levanter's text format leaves it off. @default false
   */
  longStringWorkaround: z.boolean().default(false),
  /** The workaround's piece length in code points. @default 10000 */
  workaroundLen: z.number().int().positive().default(LONG_STRING_WORKAROUND),
  /** Texts per `encodeBatch` call into the native encoder. @default 256 */
  batchSize: z.number().int().positive().default(256),
  /** `encodeBatch` calls in flight at once, so JavaScript converts one batch while Rust encodes the next. @default 2 */
  concurrency: z.number().int().positive().default(2),
});
export type LevanterTokenizerOptions = z.input<typeof LevanterTokenizerOptionsSchema>;
export type LevanterTokenizerConfig = z.output<typeof LevanterTokenizerOptionsSchema>;

/** Levanter's `BatchTokenizer.metadata`, stored as a cache ledger's `preprocessor_metadata` (key order kept). */
export interface LevanterPreprocessorMetadata {
  tokenizer: string;
  vocab_size: number;
  return_attention_mask: false;
  padding: false;
  max_length: null;
  append_bos: boolean;
  append_eos: boolean;
}

/** A Hugging Face `tokenizer.json` tokenizer that encodes documents id-for-id as Levanter's text format does. */
export interface LevanterTokenizer {
  /** The name recorded in metadata. */
  readonly name: string;
  /** Ids including added tokens (`Tokenizer.get_vocab_size()`). */
  readonly vocabSize: number;
  /** The BOS token's id, or `undefined` when `tokenizer_config.json` names none or it is not in the vocabulary. */
  readonly bosId: number | undefined;
  /** The EOS token's id, or `undefined` likewise. */
  readonly eosId: number | undefined;
  readonly bosToken: string | undefined;
  readonly eosToken: string | undefined;
  /** Whether BOS is prepended: `enforceBos` and a BOS id exists. */
  readonly appendBos: boolean;
  /** Whether `" " + eos_token` is appended: `enforceEos` and an EOS id exists. */
  readonly appendEos: boolean;
  readonly preprocessorMetadata: LevanterPreprocessorMetadata;
  /**
   * Encodes each text as `[bos_id] + encode(text + " " + eos_token)` without the tokenizer's own special
   * tokens, splitting over-long runs as Levanter does. The result has one array per text, in order.
   */
  encodeDocuments(texts: readonly string[]): Promise<Int32Array[]>;
}

function joinLocation(location: string, file: string): string {
  return `${location.replace(/(?<=[^/])\/+$/, '')}/${file}`;
}

async function readOptional(url: string): Promise<string | undefined> {
  try {
    return await readText(url);
  } catch (e) {
    if (RiggingError.is(e) && e.code === 'RIGGING_NOT_FOUND') return undefined;
    throw e;
  }
}

function invalid(path: string, problem: string, cause?: unknown): PipelineError {
  return new PipelineError('PIPELINE_TOKENIZER_INVALID', `tokenizer file "${path}" ${problem}`, { cause, details: { path } });
}

function parseConfig(path: string, text: string | undefined): TokenizerConfigJson {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalid(path, 'is not valid JSON', e);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(path, 'is not a JSON object');
  return value as TokenizerConfigJson;
}

/**
 * Loads the tokenizer in `location`, a local directory or any rigging URL (`gs://…`, `memory://…`)
 * holding `tokenizer.json` and optionally `tokenizer_config.json`, the way Levanter's `load_tokenizer`
 * reads a local directory: BOS and EOS come from `tokenizer_config.json` (a string or `{content}`).
 *
 * @throws {PipelineError} PIPELINE_TOKENIZER_INVALID when `tokenizer.json` is missing or unparseable, or
 *   `tokenizer_config.json` is not a JSON object (`details.path` names the file)
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID when `options` fail validation (`details.issues`)
 */
export async function loadLevanterTokenizer(location: string, options: LevanterTokenizerOptions = {}): Promise<LevanterTokenizer> {
  const parsed = LevanterTokenizerOptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid tokenizer options for "${location}"`, {
      cause: parsed.error,
      details: { issues: parsed.error.issues },
    });
  }
  const config = parsed.data;
  const tokenizerPath = joinLocation(location, 'tokenizer.json');
  const configPath = joinLocation(location, 'tokenizer_config.json');
  // Both files are read into memory and parsed from there, so a remote tokenizer needs no local copy.
  const [tokenizerJson, configText] = await Promise.all([readOptional(tokenizerPath), readOptional(configPath)]);
  if (tokenizerJson === undefined) throw invalid(tokenizerPath, 'does not exist; a tokenizer directory needs one');
  let tokenizer: Tokenizer;
  try {
    tokenizer = Tokenizer.fromString(tokenizerJson);
  } catch (e) {
    throw invalid(tokenizerPath, 'is not a tokenizer the tokenizers library can load', e);
  }
  return createLevanterTokenizer(tokenizer, parseConfig(configPath, configText), config.name ?? location, config);
}

function tokenId(tokenizer: Tokenizer, token: string | undefined): number | undefined {
  return token === undefined ? undefined : (tokenizer.tokenToId(token) ?? undefined);
}

function createLevanterTokenizer(
  tokenizer: Tokenizer,
  tokenizerConfig: TokenizerConfigJson,
  name: string,
  config: LevanterTokenizerConfig,
): LevanterTokenizer {
  const bosToken = resolveSpecialToken(tokenizerConfig, 'bos_token');
  const eosToken = resolveSpecialToken(tokenizerConfig, 'eos_token');
  const bosId = tokenId(tokenizer, bosToken);
  const eosId = tokenId(tokenizer, eosToken);
  const appendBos = config.enforceBos && bosId !== undefined;
  const appendEos = config.enforceEos && eosId !== undefined;
  const vocabSize = tokenizer.getVocabSize(true);
  // Levanter appends the EOS token's text and lets the encoder match it as an added token.
  const suffix = appendEos ? ` ${eosToken as string}` : '';
  const lead = appendBos ? 1 : 0;

  function splitDocument(text: string, parts: string[]): void {
    const pieces = config.longStringWorkaround ? splitLongString(text, config.workaroundLen) : [text];
    for (const piece of pieces) {
      const split = safeSplitForTokenizer(piece);
      for (const part of split) parts.push(part);
    }
  }

  async function encodeParts(parts: readonly string[]): Promise<number[][]> {
    const out: number[][] = new Array<number[]>(parts.length);
    let next = 0;
    async function worker(): Promise<void> {
      while (next < parts.length) {
        const start = next;
        const end = Math.min(parts.length, start + config.batchSize);
        next = end;
        const encodings = await tokenizer.encodeBatch(parts.slice(start, end), { addSpecialTokens: false });
        for (let i = 0; i < encodings.length; i++) out[start + i] = (encodings[i] as (typeof encodings)[number]).getIds();
      }
    }
    await Promise.all(Array.from({ length: Math.min(config.concurrency, Math.ceil(parts.length / config.batchSize)) }, worker));
    return out;
  }

  async function encodeDocuments(texts: readonly string[]): Promise<Int32Array[]> {
    const parts: string[] = [];
    const firstPart = new Int32Array(texts.length + 1);
    for (let d = 0; d < texts.length; d++) {
      firstPart[d] = parts.length;
      splitDocument((texts[d] as string) + suffix, parts);
    }
    firstPart[texts.length] = parts.length;
    const ids = await encodeParts(parts);
    const docs = new Array<Int32Array>(texts.length);
    for (let d = 0; d < texts.length; d++) {
      const from = firstPart[d] as number;
      const to = firstPart[d + 1] as number;
      let length = lead;
      for (let p = from; p < to; p++) length += (ids[p] as number[]).length;
      const doc = new Int32Array(length);
      if (appendBos) doc[0] = bosId as number;
      let at = lead;
      for (let p = from; p < to; p++) {
        const partIds = ids[p] as number[];
        doc.set(partIds, at);
        at += partIds.length;
      }
      docs[d] = doc;
    }
    return docs;
  }

  return {
    name,
    vocabSize,
    bosId,
    eosId,
    bosToken,
    eosToken,
    appendBos,
    appendEos,
    preprocessorMetadata: {
      tokenizer: name,
      vocab_size: vocabSize,
      return_attention_mask: false,
      padding: false,
      max_length: null,
      append_bos: appendBos,
      append_eos: appendEos,
    },
    encodeDocuments,
  };
}
