// Parquet read throughput of the text column, ours (hyparquet + hyparquet-compressors, one row group at a
// time into JS strings) against pyarrow on the same files, one core each:
//
//   node --conditions=@marin/source --import tsx packages/pipeline/bench/parquet-read.ts [--mb 100]
//
// Needs the curation oracle environment (node tools/python-env/python-env.mjs packages/pipeline/python/curation.lock).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readParquetRecords } from '../src/formats/parquet-records.js';
import { curationPython } from '../test/helpers/curation-python.js';
import { generateDocuments } from './synthetic-documents.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '100' } } });
const python = await curationPython();
const oracle = join(here, 'parquet_read_oracle.py');

function py(...argv: string[]): string {
  const r = spawnSync(python, [oracle, ...argv], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`parquet_read_oracle.py ${argv[0]} failed:\n${r.stderr}`);
  return r.stdout;
}

async function ours(path: string): Promise<{ seconds: number; chars: number }> {
  let best = Infinity;
  let chars = 0;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    chars = 0;
    for await (const r of readParquetRecords(path, { columns: ['text'] })) chars += (r['text'] as string).length;
    best = Math.min(best, (performance.now() - start) / 1000);
  }
  return { seconds: best, chars };
}

const dir = await mkdtemp(join(tmpdir(), 'bench-parquet-'));
try {
  const docs = generateDocuments(Number(args.mb) * 1_000_000);
  const textBytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0);
  await writeFile(join(dir, 'docs.jsonl'), docs.map((text, id) => `${JSON.stringify({ id, text })}\n`).join(''));
  console.log(`${docs.length} documents, ${(textBytes / 1e6).toFixed(1)} MB of text`);
  console.log('| file | ours MB/s | pyarrow → Arrow MB/s | pyarrow → Python str MB/s | ours / Arrow | ours / Python str |');
  for (const [codec, rows] of [['zstd', 10_000], ['snappy', 10_000], ['none', 10_000]] as const) {
    const file = join(dir, `${codec}.parquet`);
    py('write', join(dir, 'docs.jsonl'), file, codec, String(rows));
    const size = (await stat(file)).size;
    const mine = await ours(file);
    const theirs = JSON.parse(py('read', file)) as { arrow_seconds: number; python_seconds: number; chars: number };
    if (theirs.chars !== mine.chars) throw new Error(`character counts differ: ours ${mine.chars}, pyarrow ${theirs.chars}`);
    const mbps = (s: number): string => (textBytes / 1e6 / s).toFixed(0);
    console.log(
      `| ${codec}, ${rows} rows/group, ${(size / 1e6).toFixed(0)} MB | ${mbps(mine.seconds)} | ${mbps(theirs.arrow_seconds)} | ${mbps(theirs.python_seconds)} | ${(theirs.arrow_seconds / mine.seconds).toFixed(2)}x | ${(theirs.python_seconds / mine.seconds).toFixed(2)}x |`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
