import { exists } from '@marin/rigging';
import { PipelineError } from '../errors.js';
import { INPUT_IDS_FIELD, LEDGER_FILE, readFinishedLedger } from './cache-ledger.js';
import type { CacheLedger } from './cache-ledger.js';
import { ShardedArrayReader } from './sharded-array-reader.js';

/** What {@link checkTokenCache} found in a split. */
export interface TokenCacheCheck {
  /** The split directory. */
  url: string;
  rows: number;
  tokens: number;
  /** `preprocessor_metadata.tokenizer` of the ledger: the tokenizer the cache was written with. */
  tokenizer: string;
  layout: 'consolidated' | 'sharded';
}

function bad(message: string, path: string, cause?: unknown): PipelineError {
  return new PipelineError('PIPELINE_CACHE_INVALID', message, { details: { path }, ...(cause === undefined ? {} : { cause }) });
}

async function ledgerOf(dirUrl: string): Promise<CacheLedger> {
  const path = `${dirUrl}/${LEDGER_FILE}`;
  try {
    return await readFinishedLedger(dirUrl);
  } catch (e) {
    throw bad(`token cache "${dirUrl}" has no finished ledger: "${path}" is missing, unparseable or not finished`, path, e);
  }
}

/** Opens `<dir>/input_ids/<name>` after checking its `zarr.json` and every shard file `elements` need exist. */
async function openArray(dir: string, name: 'offsets' | 'data', elements: number): Promise<ShardedArrayReader> {
  const arrayUrl = `${dir}/${INPUT_IDS_FIELD}/${name}`;
  const meta = `${arrayUrl}/zarr.json`;
  if (!(await exists(meta))) throw bad(`token cache array metadata "${meta}" is missing`, meta);
  let reader: ShardedArrayReader;
  try {
    reader = await ShardedArrayReader.open(arrayUrl);
  } catch (e) {
    throw bad(`token cache array metadata "${meta}" is malformed`, meta, e);
  }
  // A missing shard file reads as zeros, so absence has to be checked, not inferred from values.
  const shards = elements === 0 ? 0 : Math.floor((elements - 1) / reader.layout.shardElements) + 1;
  for (let k = 0; k < shards; k++) {
    const shard = `${arrayUrl}/c/${k}`;
    if (!(await exists(shard))) throw bad(`token cache shard "${shard}" is missing (${elements} elements need ${shards} shard files)`, shard);
  }
  return reader;
}

/** Rows and tokens of one consolidated cache directory, read from its arrays and compared with its ledger. */
async function checkConsolidated(dir: string, ledger: CacheLedger): Promise<{ rows: number; tokens: number }> {
  const ledgerPath = `${dir}/${LEDGER_FILE}`;
  const rows = ledger.total_num_rows;
  const tokens = ledger.field_counts[INPUT_IDS_FIELD] ?? 0;
  const offsets = await openArray(dir, 'offsets', rows + 1);
  const data = await openArray(dir, 'data', tokens);
  const offsetsUrl = `${dir}/${INPUT_IDS_FIELD}/offsets`;
  const [head] = await readOrFail(() => offsets.readNumbers(0, 1), offsetsUrl);
  const [end] = rows === 0 ? [0] : await readOrFail(() => offsets.readNumbers(rows, rows + 1), offsetsUrl);
  if (head !== rows || end !== tokens) {
    throw bad(`token cache "${dir}": its offsets hold ${head} rows and ${end} tokens, "${ledgerPath}" says ${rows} and ${tokens}`, offsetsUrl);
  }
  // The last token decodes only when the data array really holds every token the ledger counts.
  if (tokens > 0) await readOrFail(() => data.readInt32(tokens - 1, tokens), `${dir}/${INPUT_IDS_FIELD}/data`);
  return { rows, tokens };
}

async function readOrFail<T>(read: () => Promise<T>, path: string): Promise<T> {
  try {
    return await read();
  } catch (e) {
    throw bad(`token cache array "${path}" is corrupt`, path, e);
  }
}

/**
 * Checks a token cache split before anything trains on it, the way Levanter's loader would fail on it
 * later: a finished ledger, a recorded tokenizer, each part's finished ledger, array metadata and every
 * shard file the counts need, offsets that agree with the ledger's row and token counts, and a data array
 * that holds its last token. Reads a few chunks, never the whole cache.
 *
 * @throws {PipelineError} PIPELINE_CACHE_INVALID naming the missing or inconsistent file in `details.path`
 */
export async function checkTokenCache(splitUrl: string): Promise<TokenCacheCheck> {
  const url = splitUrl.replace(/\/+$/, '');
  const ledgerPath = `${url}/${LEDGER_FILE}`;
  const ledger = await ledgerOf(url);
  const tokenizer = ledger.metadata.preprocessor_metadata['tokenizer'];
  if (typeof tokenizer !== 'string' || tokenizer === '') {
    throw bad(`token cache "${url}" records no tokenizer ("metadata.preprocessor_metadata.tokenizer" in "${ledgerPath}")`, ledgerPath);
  }
  if (ledger.layout === 'consolidated') {
    const { rows, tokens } = await checkConsolidated(url, ledger);
    return { url, rows, tokens, tokenizer, layout: 'consolidated' };
  }
  const names = Object.keys(ledger.shard_rows);
  if (names.length !== ledger.finished_shards.length || names.some((n) => !ledger.finished_shards.includes(n))) {
    throw bad(`token cache "${url}": "${ledgerPath}" lists parts ${JSON.stringify(names)} but finished ${JSON.stringify(ledger.finished_shards)}`, ledgerPath);
  }
  let rows = 0;
  let tokens = 0;
  for (const name of ledger.finished_shards) {
    if (name === '' || name.includes('/') || name === '.' || name === '..') throw bad(`token cache "${url}": part name "${name}" is not a plain directory name`, ledgerPath);
    const partUrl = `${url}/${name}`;
    const part = await checkConsolidated(partUrl, await ledgerOf(partUrl));
    const listedTokens = ledger.field_counts_by_shard[name]?.[INPUT_IDS_FIELD] ?? 0;
    if (part.rows !== ledger.shard_rows[name] || part.tokens !== listedTokens) {
      throw bad(`token cache part "${partUrl}" holds ${part.rows} rows and ${part.tokens} tokens, "${ledgerPath}" says ${ledger.shard_rows[name]} and ${listedTokens}`, ledgerPath);
    }
    rows += part.rows;
    tokens += part.tokens;
  }
  if (rows !== ledger.total_num_rows || tokens !== (ledger.field_counts[INPUT_IDS_FIELD] ?? 0)) {
    throw bad(`token cache "${url}": its parts hold ${rows} rows and ${tokens} tokens, "${ledgerPath}" totals ${ledger.total_num_rows} and ${ledger.field_counts[INPUT_IDS_FIELD] ?? 0}`, ledgerPath);
  }
  return { url, rows, tokens, tokenizer, layout: 'sharded' };
}
