/**
 * Levanter token caches: write and read the zarr v3 arrays and ledgers Levanter loads. See DESIGN.md.
 */
export { createCacheWriter, CacheWriterOptionsSchema } from './cache-writer.js';
export type { CacheWriteResult, CacheWriterConfig, CacheWriterOptions, TokenCacheWriter } from './cache-writer.js';
export { writeShardedLedger } from './sharded-ledger.js';
export { openTokenCache } from './token-cache.js';
export type { TokenCache } from './token-cache.js';
export { CacheLedgerSchema, LEDGER_FILE, STATS_FILE } from './cache-ledger.js';
export type { CacheLedger } from './cache-ledger.js';
