// Parquet read throughput of the text column, ours (hyparquet + hyparquet-compressors, one row group at a
// time into JS strings) against pyarrow on the same files, one core each. The figure is MB of text per CPU-second
// of the reading process (ours: process.cpuUsage; pyarrow: getrusage, one thread), best of 3, which other
// processes on a shared machine inflate far less than wall time; wall MB/s is printed beside it:
//
//   node --conditions=@marin/source --import tsx packages/pipeline/bench/parquet-read.ts [--mb 100]
//
// Needs the curation oracle environment (node tools/python-env/python-env.mjs packages/pipeline/python/curation.lock).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readParquetRecords } from '../src/formats/parquet-records.js';
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

/** Best of 3 reads of the text column: CPU seconds of this process (user + system) and wall seconds. */
async function ours(path: string): Promise<{ cpuSeconds: number; wallSeconds: number; chars: number }> {
  let cpu = Infinity;
  let wall = Infinity;
  let chars = 0;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    chars = 0;
    for await (const r of readParquetRecords(path, { columns: ['text'] })) chars += (r['text'] as string).length;
    const used = process.cpuUsage(startCpu);
    cpu = Math.min(cpu, (used.user + used.system) / 1e6);
    wall = Math.min(wall, (performance.now() - start) / 1000);
  }
  return { cpuSeconds: cpu, wallSeconds: wall, chars };
}

const dir = await mkdtemp(join(tmpdir(), 'bench-parquet-'));
try {
  const docs = generateDocuments(Number(args.mb) * 1_000_000);
  const textBytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0);
  await writeFile(join(dir, 'docs.jsonl'), docs.map((text, id) => `${JSON.stringify({ id, text })}\n`).join(''));
  console.log(`${docs.length} documents, ${(textBytes / 1e6).toFixed(1)} MB of text, ${availableParallelism()} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('MB of text per CPU-second (wall MB/s in parentheses), best of 3 each:');
  console.log('| file | ours | pyarrow → Arrow | pyarrow → Python str | ours / Arrow | ours / Python str |');
  for (const [codec, rows] of [['zstd', 10_000], ['snappy', 10_000], ['none', 10_000]] as const) {
    const file = join(dir, `${codec}.parquet`);
    py('write', join(dir, 'docs.jsonl'), file, codec, String(rows));
    const size = (await stat(file)).size;
    const mine = await ours(file);
    const theirs = JSON.parse(py('read', file)) as { arrow: Timing; python: Timing; chars: number };
    if (theirs.chars !== mine.chars) throw new Error(`character counts differ: ours ${mine.chars}, pyarrow ${theirs.chars}`);
    const mbps = (s: number): string => (textBytes / 1e6 / s).toFixed(0);
    const cell = (t: Timing): string => `${mbps(t.cpu_seconds)} (${mbps(t.wall_seconds)})`;
    console.log(
      `| ${codec}, ${rows} rows/group, ${(size / 1e6).toFixed(0)} MB | ${cell({ cpu_seconds: mine.cpuSeconds, wall_seconds: mine.wallSeconds })} | ${cell(theirs.arrow)} | ${cell(theirs.python)} | ` +
        `${(theirs.arrow.cpu_seconds / mine.cpuSeconds).toFixed(2)}x | ${(theirs.python.cpu_seconds / mine.cpuSeconds).toFixed(2)}x |`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
