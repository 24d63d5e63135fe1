import { rm, writeText } from '@marin/rigging';
import { z } from 'zod';
import { PipelineError } from '../errors.js';
import { DEFAULT_BLOSC_BLOCKSIZE } from './blosc-frame.js';
import { INPUT_IDS_FIELD, LEDGER_FILE, STATS_FILE, formatCacheLedger, formatStats } from './cache-ledger.js';
import { JaggedArrayWriter } from './jagged-array-writer.js';

/** Options of {@link createCacheWriter}; checked with zod. */
export const CacheWriterOptionsSchema = z.object({
  /**
   * Element type of the token array. Levanter's own builder writes int64; int32 halves the size and
   * Levanter reads it the same way.
   * @default 'int32'
   */
  dtype: z.enum(['int32', 'int64']).default('int32'),
  /**
   * `lz4`: Blosc LZ4 frames with byte shuffle (smaller); `none`: stored (uncompressed) Blosc frames, faster to write.
   * @default 'lz4'
   */
  compression: z.enum(['lz4', 'none']).default('lz4'),
  /**
   * Stored as `metadata.preprocessor_metadata` in the ledger; Levanter compares it with its own
   * tokenizer settings and only logs a warning on a difference.
   * @default {}
   */
  preprocessorMetadata: z.record(z.string(), z.unknown()).default({}),
  /**
   * The name this cache's single input shard gets in `shard_rows` and `finished_shards`.
   * @default 'part-00000'
   */
  shardName: z.string().min(1).default('part-00000'),
  /**
   * Blosc block size in bytes for LZ4 frames.
   * @default 262144
   */
  blocksize: z.number().int().positive().default(DEFAULT_BLOSC_BLOCKSIZE),
});
/** What callers pass to {@link createCacheWriter}. */
export type CacheWriterOptions = z.input<typeof CacheWriterOptionsSchema>;
/** {@link CacheWriterOptions} with defaults applied. */
export type CacheWriterConfig = z.output<typeof CacheWriterOptionsSchema>;

/** Totals of a finished cache. */
export interface CacheWriteResult {
  rows: number;
  tokens: number;
}

/** A token cache being written; rows go in one document at a time. */
export interface TokenCacheWriter {
  /** The cache directory (one split). */
  readonly url: string;
  /** Rows appended so far. */
  readonly numRows: number;
  /** Tokens appended so far. */
  readonly numTokens: number;
  /** Appends one document's token ids as a row. */
  append(ids: ArrayLike<number>): Promise<void>;
  /** Writes the arrays, `.stats.json` and, last, `shard_ledger.json`; the cache is readable only after this. */
  finish(): Promise<CacheWriteResult>;
  /** Abandons the cache; no ledger is written, so readers keep treating it as unfinished. */
  abort(): Promise<void>;
}

/**
 * Starts writing a "consolidated" Levanter token cache (one split) at `dirUrl` on any rigging
 * filesystem. Memory stays at a few inner chunks however many tokens are written. An existing
 * ledger is removed first, so the directory reads as unfinished until `finish()`.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID when the options are invalid
 */
export async function createCacheWriter(dirUrl: string, options: CacheWriterOptions = {}): Promise<TokenCacheWriter> {
  const parsed = CacheWriterOptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid token cache writer options for "${dirUrl}"`, { cause: parsed.error, details: { issues: parsed.error.issues } });
  }
  const config = parsed.data;
  const url = dirUrl.replace(/\/+$/, '');
  await rm(`${url}/${LEDGER_FILE}`, { missingOk: true });
  const ids = await JaggedArrayWriter.create(`${url}/${INPUT_IDS_FIELD}`, { dtype: config.dtype, compression: config.compression, blocksize: config.blocksize });
  let state: 'open' | 'finished' | 'aborted' = 'open';
  const assertOpen = (): void => {
    if (state !== 'open') throw new PipelineError('PIPELINE_WRITER_CLOSED', `token cache writer for "${url}" is already ${state}`, { details: { path: url, state } });
  };
  return {
    url,
    get numRows() {
      return ids.numRows;
    },
    get numTokens() {
      return ids.numElements;
    },
    async append(row) {
      assertOpen();
      await ids.append(row);
    },
    async finish() {
      assertOpen();
      state = 'finished';
      const { rows, elements } = await ids.finish();
      await writeText(`${url}/${STATS_FILE}`, formatStats(elements, rows));
      const ledger = formatCacheLedger({
        total_num_rows: rows,
        shard_rows: { [config.shardName]: rows },
        is_finished: true,
        finished_shards: [config.shardName],
        field_counts: { [INPUT_IDS_FIELD]: elements },
        field_counts_by_shard: { [config.shardName]: { [INPUT_IDS_FIELD]: elements } },
        layout: 'consolidated',
        metadata: { preprocessor_metadata: config.preprocessorMetadata },
      });
      await writeText(`${url}/${LEDGER_FILE}`, ledger);
      return { rows, tokens: elements };
    },
    async abort() {
      if (state === 'open') ids.abort();
      state = 'aborted';
    },
  };
}
