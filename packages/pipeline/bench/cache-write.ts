/**
 * Write (and read-back) throughput of Levanter token caches: 50M tokens through `createCacheWriter`
 * with LZ4 Blosc frames and with stored frames (int32), plus LZ4 with int64 data (what Levanter's own
 * builder writes), to a local temp dir. Prints MB/s of raw token bytes, tokens/s and the on-disk
 * compression ratio.
 *
 * The tokens are synthetic: ids drawn from a Zipf(1.1) law over a 128,256-entry vocabulary (Llama 3's
 * size), documents of geometric length (mean 1,000). Independent draws have no repeated phrases, so
 * LZ4 compresses real text at least this well; treat the ratio as a floor.
 *
 * Run: node --conditions=@marin/source --import tsx packages/pipeline/bench/cache-write.ts [tokens]
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCacheWriter, openTokenCache } from '../src/cache/index.js';
import type { CacheWriterOptions } from '../src/cache/index.js';

const TOKENS = Number(process.argv[2] ?? 50_000_000);
const VOCAB = 128_256;
const MEAN_DOC = 1000;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function zipfTokens(n: number): Int32Array {
  const cdf = new Float64Array(VOCAB);
  let sum = 0;
  for (let k = 0; k < VOCAB; k++) cdf[k] = sum += 1 / (k + 1) ** 1.1;
  for (let k = 0; k < VOCAB; k++) cdf[k]! /= sum;
  // Frequent ranks are scattered over the id space, as BPE ids are not sorted by frequency.
  const idOfRank = Int32Array.from({ length: VOCAB }, (_, k) => k);
  const shuffle = rng(7);
  for (let k = VOCAB - 1; k > 0; k--) {
    const j = Math.floor(shuffle() * (k + 1));
    [idOfRank[k], idOfRank[j]] = [idOfRank[j]!, idOfRank[k]!];
  }
  const u = rng(1);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const x = u();
    let lo = 0;
    let hi = VOCAB - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    out[i] = idOfRank[lo]!;
  }
  return out;
}

function docLengths(total: number): number[] {
  const u = rng(2);
  const lengths: number[] = [];
  let left = total;
  while (left > 0) {
    const len = Math.min(left, 1 + Math.floor(-Math.log(1 - u()) * (MEAN_DOC - 1)));
    lengths.push(len);
    left -= len;
  }
  return lengths;
}

async function bytesUnder(path: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

const tokens = zipfTokens(TOKENS);
const lengths = docLengths(TOKENS);
const rawMb = (TOKENS * 4) / 1e6;
const root = await mkdtemp(join(tmpdir(), 'cache-write-bench-'));
console.log(`${(TOKENS / 1e6).toFixed(0)}M tokens in ${lengths.length} documents (${rawMb.toFixed(0)} MB as int32), writing under ${root}`);
try {
  const cases: [string, CacheWriterOptions][] = [
    ['lz4 int32', { compression: 'lz4', dtype: 'int32' }],
    ['stored int32', { compression: 'none', dtype: 'int32' }],
    ['lz4 int64', { compression: 'lz4', dtype: 'int64' }],
  ];
  for (const [name, opts] of cases) {
    const dir = join(root, name.replace(' ', '-'));
    const started = performance.now();
    const w = await createCacheWriter(join(dir, 'train'), opts);
    let at = 0;
    for (const len of lengths) {
      await w.append(tokens.subarray(at, at + len));
      at += len;
    }
    await w.finish();
    const writeS = (performance.now() - started) / 1000;
    const disk = await bytesUnder(dir);
    const readStarted = performance.now();
    const cache = await openTokenCache(dir, 'train');
    for (let s = 0; s < cache.numTokens; s += 1 << 20) await cache.tokens(s, Math.min(cache.numTokens, s + (1 << 20)));
    const readS = (performance.now() - readStarted) / 1000;
    console.log(
      `${name.padEnd(13)} write ${(rawMb / writeS).toFixed(0).padStart(5)} MB/s ${(TOKENS / writeS / 1e6).toFixed(1).padStart(6)}M tokens/s` +
        ` | on disk ${(disk / 1e6).toFixed(0).padStart(4)} MB, ratio ${((TOKENS * 4) / disk).toFixed(2)} vs int32` +
        ` | read ${(rawMb / readS).toFixed(0).padStart(5)} MB/s`,
    );
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
