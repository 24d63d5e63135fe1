// The curation scale bench's input: parquet files of the seeded synthetic corpus (planted exact and near
// duplicates), generated as a stream (one row group and a window of recent originals in memory) and cached on
// local disk under a key of its parameters, so a rerun of the bench skips generation.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { syntheticDocuments } from '../src/curation/synthetic/synthetic-corpus.js';
import { createParquetPartWriter } from '../src/formats/parquet-part-writer.js';
import type { ParquetPartWriter } from '../src/formats/parquet-part-writer.js';

/** What decides the corpus's bytes; its hash is the cache key. */
export interface ScaleCorpusParams {
  /** Stop once this many bytes of text (UTF-8) are written. */
  textBytes: number;
  seed: number;
  /** Text bytes per parquet file. */
  fileBytes: number;
  /** Text bytes per row group (the unit of parallel reading). */
  rowGroupBytes: number;
  exactDuplicateRate: number;
  nearDuplicateRate: number;
  /** Originals a planted duplicate may copy (bounds the generator's memory). */
  sourceWindow: number;
}

/** A generated corpus on local disk. */
export interface ScaleCorpus {
  dir: string;
  key: string;
  params: ScaleCorpusParams;
  documents: number;
  textBytes: number;
  /** Size of the parquet files (zstd). */
  fileBytes: number;
  files: string[];
  planted: { exact: number; near: number };
  /** Seconds spent generating (0 when served from the cache). */
  seconds: number;
  cached: boolean;
}

const GENERATOR = 'syntheticDocuments/v1';
const MANIFEST = 'corpus.json';
const COLUMNS = [
  { name: 'id', type: 'string' as const, nullable: false },
  { name: 'text', type: 'string' as const, nullable: false },
];

/** Where corpora are cached: `$MARIN_BENCH_CACHE`, else `~/.cache/marin/bench`. */
export function benchCacheRoot(): string {
  return process.env['MARIN_BENCH_CACHE'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'marin', 'bench');
}

/** The cached corpus for `params`, generated first when missing (into a temp dir renamed into place when complete). */
export async function ensureScaleCorpus(params: ScaleCorpusParams, root = benchCacheRoot()): Promise<ScaleCorpus> {
  const key = createHash('sha256').update(JSON.stringify({ generator: GENERATOR, ...params })).digest('hex').slice(0, 16);
  const dir = join(root, 'curation-scale', key);
  if (existsSync(join(dir, MANIFEST))) {
    return { ...(JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as Omit<ScaleCorpus, 'dir' | 'cached' | 'seconds'>), dir, seconds: 0, cached: true };
  }
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const start = performance.now();
  const files: string[] = [];
  let writer: ParquetPartWriter | null = null;
  let inFile = 0;
  let textBytes = 0;
  let fileBytes = 0;
  let documents = 0;
  const planted = { exact: 0, near: 0 };
  try {
    for (const doc of syntheticDocuments({ seed: params.seed, documents: 2 ** 31 - 1, exactDuplicateRate: params.exactDuplicateRate, nearDuplicateRate: params.nearDuplicateRate, sourceWindow: params.sourceWindow })) {
      if (textBytes >= params.textBytes) break;
      if (writer === null) {
        const name = `corpus-${String(files.length).padStart(5, '0')}.parquet`;
        files.push(name);
        writer = await createParquetPartWriter(join(partial, name), { columns: COLUMNS, rowGroupBytes: params.rowGroupBytes });
      }
      await writer.write({ id: doc.id, text: doc.text });
      const n = Buffer.byteLength(doc.text);
      textBytes += n;
      inFile += n;
      documents += 1;
      if (doc.kind !== 'original') planted[doc.kind] += 1;
      if (inFile >= params.fileBytes) {
        fileBytes += (await writer.close()).bytes;
        writer = null;
        inFile = 0;
      }
    }
    if (writer !== null) fileBytes += (await writer.close()).bytes;
  } catch (e) {
    await writer?.abort();
    await rm(partial, { recursive: true, force: true });
    throw e;
  }
  const corpus = { key, params, documents, textBytes, fileBytes, files, planted };
  await writeFile(join(partial, MANIFEST), `${JSON.stringify(corpus, null, 2)}\n`);
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
  return { ...corpus, dir, seconds: (performance.now() - start) / 1000, cached: false };
}
