import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBloscHeader } from '../../src/cache/blosc-frame.js';
import { createCacheWriter, openTokenCache, writeShardedLedger } from '../../src/cache/index.js';
import type { CacheWriterOptions } from '../../src/cache/index.js';
import { decodeShardIndex, shardIndexBytes } from '../../src/cache/shard-index.js';
import { CHUNKS_PER_SHARD, SHARD_ELEMENTS, zarrArrayMetadata } from '../../src/cache/zarr-array-metadata.js';
import { runLevanterPython } from '../helpers/levanter-python.js';

const here = dirname(fileURLToPath(import.meta.url));
const ORACLE = resolve(here, '../python/levanter_cache_oracle.py');
const SHIPPED_TOKENIZER = resolve(here, '../../assets/tokenizers/marin-tiny-bpe');
// Not a power of two, so training windows straddle inner-chunk, shard-file and part boundaries.
const SEQ_LEN = 4000;

/** Row r of a part with `seed`: the formula the Python oracle recomputes. */
function row(r: number, maxLen: number, seed: number): Int32Array {
  const n = 1 + (((r + seed) * 7919) % maxLen);
  const out = new Int32Array(n);
  const base = (r + seed) * 31;
  for (let i = 0; i < n; i++) out[i] = (base + i * 17) % 50_000;
  return out;
}

interface PartSpec {
  rows: number;
  max_len: number;
  seed: number;
}

async function writePart(url: string, part: PartSpec, opts: CacheWriterOptions): Promise<{ rows: number; tokens: number }> {
  const w = await createCacheWriter(url, opts);
  for (let r = 0; r < part.rows; r++) await w.append(row(r, part.max_len, part.seed));
  return w.finish();
}

/** Rows needed for a part's tokens to pass `tokens`. */
function rowsFor(tokens: number, maxLen: number, seed: number): number {
  let sum = 0;
  let r = 0;
  while (sum <= tokens) sum += 1 + (((r++ + seed) * 7919) % maxLen);
  return r;
}

/** Deterministic English-ish documents for Levanter's own builder. */
function corpus(docs: number): string[] {
  const words = ['token', 'cache', 'levanter', 'marin', 'shard', 'zarr', 'chunk', 'the', 'of', 'and', 'blosc', 'model', 'data', 'train', 'eval'];
  let s = 12345;
  const next = (): number => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31);
  return Array.from({ length: docs }, () => Array.from({ length: 80 + (next() % 400) }, () => words[next() % words.length]).join(' '));
}

interface CacheResult {
  rows: number;
  tokens: number;
  is_sharded: boolean;
  rows_checked: number;
  row_mismatches: number[];
  windows_checked: number;
  window_mismatches: number[];
  dtype: string | null;
}

let dir: string;
let results: { caches: Record<string, CacheResult>; build: { rows: number; tokens: number; is_sharded: boolean } };
const written: Record<string, { rows: number; tokens: number }> = {};
const small: PartSpec = { rows: 700, max_len: 2000, seed: 0 }; // ~700k tokens: several inner chunks
const shardedParts: PartSpec[] = [
  { rows: 300, max_len: 2000, seed: 1 },
  { rows: 0, max_len: 1, seed: 0 },
  { rows: 250, max_len: 3000, seed: 7 },
];
const big: PartSpec = { rows: rowsFor(SHARD_ELEMENTS + 300_000, 200_000, 3), max_len: 200_000, seed: 3 };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'levanter-cache-'));
  for (const compression of ['lz4', 'none'] as const) {
    written[compression] = await writePart(join(dir, `ts-${compression}`, 'train'), small, { compression, dtype: 'int32', preprocessorMetadata: { tokenizer: 'x' } });
  }
  const names = shardedParts.map((_, i) => `part-${String(i).padStart(5, '0')}`);
  for (const [i, part] of shardedParts.entries()) await writePart(join(dir, 'ts-sharded', 'train', names[i]!), part, { compression: 'lz4', dtype: 'int64' });
  written['sharded'] = await writeShardedLedger(join(dir, 'ts-sharded', 'train'), names);
  written['big'] = await writePart(join(dir, 'ts-big', 'train'), big, { compression: 'lz4', dtype: 'int32' });

  const jsonl = join(dir, 'corpus.jsonl');
  await writeFile(jsonl, corpus(1500).map((text, i) => `${JSON.stringify({ id: `doc-${i}`, text })}\n`).join(''));
  const hasShipped = await stat(join(SHIPPED_TOKENIZER, 'tokenizer.json')).then(() => true, () => false);
  const partTokens = shardedParts.map((p) => Array.from({ length: p.rows }, (_, r) => row(r, p.max_len, p.seed).length).reduce((a, b) => a + b, 0));
  const around = (pos: number): number[] => [Math.floor(pos / SEQ_LEN) - 1, Math.floor(pos / SEQ_LEN), Math.floor(pos / SEQ_LEN) + 1];
  const bigBoundaryRow = rowsFor(SHARD_ELEMENTS, big.max_len, big.seed) - 1; // the row holding token 2^27
  const innerWindows = [...around(262_144), ...around(2 * 262_144)];
  const spec = {
    tokenizer_dir: hasShipped ? SHIPPED_TOKENIZER : join(dir, 'tokenizer'),
    caches: {
      lz4: { path: join(dir, 'ts-lz4', 'train'), parts: [small], seq_len: SEQ_LEN, windows: innerWindows },
      none: { path: join(dir, 'ts-none', 'train'), parts: [small], seq_len: SEQ_LEN, windows: innerWindows },
      sharded: { path: join(dir, 'ts-sharded', 'train'), parts: shardedParts, seq_len: SEQ_LEN, windows: [...around(partTokens[0]!), ...around(262_144)] },
      big: {
        path: join(dir, 'ts-big', 'train'),
        parts: [big],
        seq_len: SEQ_LEN,
        sample_rows: [0, 1, bigBoundaryRow - 1, bigBoundaryRow, bigBoundaryRow + 1, big.rows - 1],
        windows: [...around(262_144), ...around(SHARD_ELEMENTS)],
      },
    },
    build: { jsonl, cache_dir: join(dir, 'levanter', 'train'), rows_out: join(dir, 'levanter-rows.json') },
    out: join(dir, 'results.json'),
  };
  await writeFile(join(dir, 'spec.json'), JSON.stringify(spec));
  await runLevanterPython(await readFile(ORACLE, 'utf8'), [join(dir, 'spec.json')]);
  results = JSON.parse(await readFile(spec.out, 'utf8'));
}, 900_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function expectAllEqual(r: CacheResult | undefined, counts: { rows: number; tokens: number } | undefined): void {
  expect(r).toBeDefined();
  expect({ rows: r!.rows, tokens: r!.tokens }).toEqual(counts);
  expect(r!.rows_checked).toBeGreaterThan(0);
  expect(r!.row_mismatches).toEqual([]);
  expect(r!.windows_checked).toBeGreaterThan(3);
  expect(r!.window_mismatches).toEqual([]);
}

describe('TypeScript-written caches read by Levanter', () => {
  it('loads a consolidated int32 cache of LZ4 frames with every row and training window equal', () => {
    expect(written['lz4']!.tokens).toBeGreaterThan(2 * 262_144);
    expectAllEqual(results.caches['lz4'], written['lz4']);
    expect(results.caches['lz4']!.rows_checked).toBe(small.rows);
    expect(results.caches['lz4']!.dtype).toBe('int32');
    expect(results.caches['lz4']!.is_sharded).toBe(false);
  });

  it('loads a consolidated cache of stored (uncompressed) frames with every row equal', () => {
    expectAllEqual(results.caches['none'], written['none']);
    expect(results.caches['none']!.rows_checked).toBe(small.rows);
  });

  it('loads the sharded layout (three parts, one empty) through its ledger validation, rows and cross-part windows equal', () => {
    expectAllEqual(results.caches['sharded'], written['sharded']);
    expect(results.caches['sharded']!.is_sharded).toBe(true);
    expect(results.caches['sharded']!.rows_checked).toBe(550);
  });

  it('loads a cache whose token array spans two shard files, reading rows and windows across the boundary', async () => {
    expect(written['big']!.tokens).toBeGreaterThan(SHARD_ELEMENTS);
    expect(await stat(join(dir, 'ts-big', 'train', 'input_ids', 'data', 'c', '1')).then(() => true)).toBe(true);
    expectAllEqual(results.caches['big'], written['big']);
  });
});

describe('a cache written by Levanter read by openTokenCache()', () => {
  it('has the rows Levanter reads, in order, and the same flat token stream', async () => {
    const expected: number[][] = JSON.parse(await readFile(join(dir, 'levanter-rows.json'), 'utf8'));
    const cache = await openTokenCache(join(dir, 'levanter'), 'train');
    expect([cache.numRows, cache.numTokens]).toEqual([results.build.rows, results.build.tokens]);
    expect(cache.numTokens).toBeGreaterThan(262_144);
    for (let i = 0; i < expected.length; i++) expect(Array.from(await cache.row(i))).toEqual(expected[i]);
    const flat = expected.flat();
    for (const start of [0, 262_000, flat.length - 1000]) expect(Array.from(await cache.tokens(start, start + 1000))).toEqual(flat.slice(start, start + 1000));
  });

  it('uses the zarr.json this package writes (int64 data) and split LZ4 frames, which the reader decodes', async () => {
    const base = join(dir, 'levanter', 'train', 'input_ids');
    for (const array of ['offsets', 'data']) {
      expect(JSON.parse(await readFile(join(base, array, 'zarr.json'), 'utf8'))).toEqual(zarrArrayMetadata('int64'));
    }
    const shard = await readFile(join(base, 'data', 'c', '0'));
    const entries = decodeShardIndex(shard.subarray(shard.length - shardIndexBytes(CHUNKS_PER_SHARD)), CHUNKS_PER_SHARD, shard.length);
    const first = entries[0]!;
    const header = readBloscHeader(shard.subarray(first.offset, first.offset + first.nbytes));
    expect({ typesize: header.typesize, codec: header.flags >> 5, split: (header.flags & 0x10) === 0 }).toEqual({ typesize: 8, codec: 1, split: true });
  });
});
