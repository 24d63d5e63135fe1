import { PipelineError } from '../errors.js';
import { INPUT_IDS_FIELD, readFinishedLedger } from './cache-ledger.js';
import type { CacheLedger } from './cache-ledger.js';
import { ShardedArrayReader } from './sharded-array-reader.js';

/** A finished token cache (one split), read lazily through rigging. */
export interface TokenCache {
  /** The split directory. */
  readonly url: string;
  /** Rows (documents). */
  readonly numRows: number;
  /** Tokens across all rows. */
  readonly numTokens: number;
  /** `metadata.preprocessor_metadata` of the ledger (tokenizer, BOS/EOS settings, …). */
  readonly metadata: Record<string, unknown>;
  /** The parsed `shard_ledger.json`. */
  readonly ledger: CacheLedger;
  /**
   * The token ids of row `i`.
   * @throws RangeError when `i` is not in `[0, numRows)`
   * @throws {PipelineError} PIPELINE_CACHE_INVALID when the arrays are corrupt
   */
  row(i: number): Promise<Int32Array>;
  /**
   * Tokens `[start, end)` of the flat stream of all rows concatenated, crossing document (and part)
   * boundaries, as Levanter's `TokenSeqDataset` reads training windows.
   * @throws RangeError when the window is outside `[0, numTokens]`
   * @throws {PipelineError} PIPELINE_CACHE_INVALID when the arrays are corrupt
   */
  tokens(start: number, end: number): Promise<Int32Array>;
}

interface Part {
  numRows: number;
  numTokens: number;
  row(i: number): Promise<Int32Array>;
  tokens(start: number, end: number): Promise<Int32Array>;
}

/** One consolidated cache: the jagged array `input_ids` with its row and token counts from the offsets. */
async function openConsolidated(url: string): Promise<Part> {
  const [offsets, data] = await Promise.all([
    ShardedArrayReader.open(`${url}/${INPUT_IDS_FIELD}/offsets`),
    ShardedArrayReader.open(`${url}/${INPUT_IDS_FIELD}/data`),
  ]);
  // As in Levanter, the counts come from the arrays, not from the ledger.
  const numRows = (await offsets.readNumbers(0, 1))[0]!;
  const numTokens = numRows === 0 ? 0 : (await offsets.readNumbers(numRows, numRows + 1))[0]!;
  return {
    numRows,
    numTokens,
    async row(i) {
      const [before, end] = await offsets.readNumbers(i, i + 2);
      const start = i === 0 ? 0 : before!;
      if (!(start <= end! && end! <= numTokens)) {
        throw new PipelineError('PIPELINE_CACHE_INVALID', `offsets of row ${i} in "${url}" are out of order (${start}..${end})`);
      }
      return data.readInt32(start, end!);
    },
    tokens: (start, end) => data.readInt32(start, end),
  };
}

/** Index of the part holding position `pos`, given each part's exclusive cumulative end. */
function partAt(ends: readonly number[], pos: number): number {
  let lo = 0;
  let hi = ends.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid]! > pos) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function cumulative(counts: readonly number[]): number[] {
  let sum = 0;
  return counts.map((c) => (sum += c));
}

/** The parts of a sharded split, concatenated in ledger order. */
async function openSharded(url: string, ledger: CacheLedger): Promise<Part> {
  const names = ledger.finished_shards;
  const parts = await Promise.all(
    names.map(async (name) => {
      const partUrl = `${url}/${name}`;
      await readFinishedLedger(partUrl);
      const part = await openConsolidated(partUrl);
      const rows = ledger.shard_rows[name];
      const tokens = ledger.field_counts_by_shard[name]?.[INPUT_IDS_FIELD] ?? (rows === 0 ? 0 : undefined);
      if (rows !== part.numRows || tokens !== part.numTokens) {
        throw new PipelineError(
          'PIPELINE_CACHE_INVALID',
          `part "${partUrl}" holds ${part.numRows} rows and ${part.numTokens} tokens, the ledger of "${url}" says ${rows} and ${tokens}`,
        );
      }
      return part;
    }),
  );
  const rowEnds = cumulative(parts.map((p) => p.numRows));
  const tokenEnds = cumulative(parts.map((p) => p.numTokens));
  const numTokens = tokenEnds.at(-1) ?? 0;
  return {
    numRows: rowEnds.at(-1) ?? 0,
    numTokens,
    row(i) {
      const k = partAt(rowEnds, i);
      return parts[k]!.row(i - (rowEnds[k]! - parts[k]!.numRows));
    },
    async tokens(start, end) {
      const out = new Int32Array(end - start);
      let pos = start;
      while (pos < end) {
        const k = partAt(tokenEnds, pos);
        const partStart = tokenEnds[k]! - parts[k]!.numTokens;
        const take = Math.min(end, tokenEnds[k]!) - pos;
        out.set(await parts[k]!.tokens(pos - partStart, pos - partStart + take), pos - start);
        pos += take;
      }
      return out;
    },
  };
}

/**
 * Opens the finished token cache of `split` under `pathOrUrl` (`<pathOrUrl>/<split>`; without
 * `split`, `pathOrUrl` is the split directory itself). Reads Levanter's "consolidated" layout and its
 * "sharded" layout (parts concatenated in ledger order), whether written here or by Levanter.
 * @throws {PipelineError} PIPELINE_CACHE_INVALID when the cache is missing, unfinished or malformed
 */
export async function openTokenCache(pathOrUrl: string, split?: string): Promise<TokenCache> {
  const base = pathOrUrl.replace(/\/+$/, '');
  const url = split === undefined || split === '' ? base : `${base}/${split}`;
  const ledger = await readFinishedLedger(url);
  let part: Part;
  try {
    part = ledger.layout === 'sharded' ? await openSharded(url, ledger) : await openConsolidated(url);
  } catch (e) {
    if (PipelineError.is(e)) throw e;
    throw new PipelineError('PIPELINE_CACHE_INVALID', `cannot open token cache "${url}"`, { cause: e });
  }
  const { numRows, numTokens } = part;
  return {
    url,
    numRows,
    numTokens,
    metadata: ledger.metadata.preprocessor_metadata,
    ledger,
    row(i) {
      if (!Number.isInteger(i) || i < 0 || i >= numRows) throw new RangeError(`row ${i} is outside [0, ${numRows}) of "${url}"`);
      return part.row(i);
    },
    tokens(start, end) {
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > numTokens) {
        throw new RangeError(`token window [${start}, ${end}) is outside [0, ${numTokens}] of "${url}"`);
      }
      return part.tokens(start, end);
    },
  };
}
