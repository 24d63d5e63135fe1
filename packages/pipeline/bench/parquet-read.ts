// Parquet read throughput of the text column, ours against pyarrow on the same files, one core each,
// like with like:
//   - ours → bytes + offsets (`readParquetUtf8Columns`: a row group's column as UTF-8 bytes and offsets,
//     checked to be valid UTF-8) against pyarrow → Arrow (`read_table(columns=['text'], use_threads=False)`:
//     the same layout, UTF-8 bytes and offsets in Arrow buffers). Ours streams a row group at a time, with
//     `reuseBuffers` (one column's buffers written over by the next, as a consumer that hashes or scans
//     does) and without (a fresh column per row group, as a consumer that keeps them); pyarrow materializes
//     the whole column, from jemalloc's pool, which hands the previous run's freed memory back;
//   - ours → JS strings (`readParquetRecords`, a record object and a string per value) against pyarrow →
//     Python str (the same read plus `to_pylist()`).
// The figure is MB of text per CPU-second of the reading process (ours: process.cpuUsage; pyarrow: getrusage,
// one thread), best of 3, which other processes on a shared machine inflate far less than wall time; wall MB/s
// is printed beside it. Both sides read files pyarrow wrote (zstd, snappy, uncompressed; dictionary off as
// pyarrow leaves it on: pyarrow falls back to PLAIN for texts this varied):
//
//   nice -n 10 node --conditions=@marin/source --import tsx packages/pipeline/bench/parquet-read.ts [--mb 100]
//
// Needs the curation oracle environment (node tools/python-env/python-env.mjs packages/pipeline/python/curation.lock).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readParquetRecords } from '../src/formats/parquet-records.js';
import { readParquetUtf8Columns } from '../src/formats/parquet-utf8-column.js';
import { curationPython } from '../test/helpers/curation-python.js';
import { generateDocuments } from './synthetic-documents.js';

/** One side's best-of-3 timing, as the oracle prints it. */
interface Timing {
  cpu_seconds: number;
  wall_seconds: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '100' } } });
const python = await curationPython();
const oracle = join(here, 'parquet_read_oracle.py');

function py(...argv: string[]): string {
  const r = spawnSync(python, [oracle, ...argv], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`parquet_read_oracle.py ${argv[0]} failed:\n${r.stderr}`);
  return r.stdout;
}

/** Best of 3 runs of `read` (which returns what it counted): CPU seconds of this process (user + system) and wall seconds. */
async function best(read: () => Promise<number>): Promise<Timing & { count: number }> {
  let cpu = Infinity;
  let wall = Infinity;
  let count = 0;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    count = await read();
    const used = process.cpuUsage(startCpu);
    cpu = Math.min(cpu, (used.user + used.system) / 1e6);
    wall = Math.min(wall, (performance.now() - start) / 1000);
  }
  return { cpu_seconds: cpu, wall_seconds: wall, count };
}

/** Ours → bytes + offsets: the text column's UTF-8 bytes, summed. */
async function oursBytes(path: string, reuseBuffers: boolean): Promise<number> {
  let bytes = 0;
  for await (const { column } of readParquetUtf8Columns(path, 'text', { reuseBuffers })) bytes += column.bytes.byteLength;
  return bytes;
}

/** Ours → JS strings: the text column's characters (UTF-16 units; code points for this ASCII-heavy text), summed. */
async function oursStrings(path: string): Promise<number> {
  let chars = 0;
  for await (const r of readParquetRecords(path, { columns: ['text'] })) chars += (r['text'] as string).length;
  return chars;
}

const dir = await mkdtemp(join(tmpdir(), 'bench-parquet-'));
try {
  const docs = generateDocuments(Number(args.mb) * 1_000_000);
  const textBytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0);
  await writeFile(join(dir, 'docs.jsonl'), docs.map((text, id) => `${JSON.stringify({ id, text })}\n`).join(''));
  console.log(`${docs.length} documents, ${(textBytes / 1e6).toFixed(1)} MB of text, ${availableParallelism()} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('MB of text per CPU-second (wall MB/s in parentheses), best of 3 each:');
  console.log('| file | ours → bytes+offsets, reused / fresh buffers | pyarrow → Arrow | ratio (reused / fresh) | ours → JS strings | pyarrow → Python str | ratio |');
  for (const [codec, rows] of [['zstd', 10_000], ['snappy', 10_000], ['none', 10_000]] as const) {
    const file = join(dir, `${codec}.parquet`);
    py('write', join(dir, 'docs.jsonl'), file, codec, String(rows));
    const size = (await stat(file)).size;
    const bytes = await best(() => oursBytes(file, true));
    const fresh = await best(() => oursBytes(file, false));
    if (fresh.count !== bytes.count) throw new Error(`UTF-8 byte counts differ: ${fresh.count} fresh, ${bytes.count} reused`);
    const strings = await best(() => oursStrings(file));
    const theirs = JSON.parse(py('read', file)) as { arrow: Timing; python: Timing; chars: number; bytes: number };
    if (theirs.bytes !== bytes.count) throw new Error(`UTF-8 byte counts differ: ours ${bytes.count}, pyarrow ${theirs.bytes}`);
    if (theirs.chars !== strings.count) throw new Error(`character counts differ: ours ${strings.count}, pyarrow ${theirs.chars}`);
    const mbps = (s: number): string => (textBytes / 1e6 / s).toFixed(0);
    const cell = (t: Timing): string => `${mbps(t.cpu_seconds)} (${mbps(t.wall_seconds)})`;
    const ratio = (ours: Timing, py: Timing): string => `${(py.cpu_seconds / ours.cpu_seconds).toFixed(2)}x`;
    console.log(
      `| ${codec}, ${rows} rows/group, ${(size / 1e6).toFixed(0)} MB | ${cell(bytes)} / ${cell(fresh)} | ${cell(theirs.arrow)} | ${ratio(bytes, theirs.arrow)} / ${ratio(fresh, theirs.arrow)} | ` +
        `${cell(strings)} | ${cell(theirs.python)} | ${ratio(strings, theirs.python)} |`,
    );
  }
  console.log(`load after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
