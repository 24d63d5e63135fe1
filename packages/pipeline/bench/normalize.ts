// Normalize with exact dedup, documents per CPU-second (one task at a time, in this process):
// parquet (zstd) input with 10 % planted exact duplicates → outputs/main + outputs/dups; then datatrove's
// exact dedup (signature, find, filter; one task each, one worker) on the same files, writing its kept and
// its excluded documents (as normalize writes main and dups). Both sides are
// compared in CPU seconds (this process's user + system time around normalize; the Python process's own
// and its children's getrusage), which load from other processes on the machine inflates much less than
// wall time. `--only ours` skips datatrove (for profiling with `node --cpu-prof`); `--map-task-mb 4` splits the
// input into several map tasks, so normalize goes through its shuffle instead of its single-task path;
// `--spill-mb N` sets `spill_bytes` (the single task spills past it).
// `--input DIR` keeps the generated input in DIR (generated there when missing) for later runs, so a
// `node --cpu-prof` run of `--only ours` profiles normalize, not the generator.
// Last, it measures what this machine's page cache charges a process for writing (CPU s per GiB written to a
// fresh file): the shuffle writes and reads back about the input's text once, so that figure is most of what
// the shuffle path costs over one task. It is measured after both pipelines, so neither reuses its pages.
//
//   node --conditions=@marin/source --import tsx packages/pipeline/bench/normalize.ts [--mb 100] [--only ours|datatrove] [--map-task-mb N] [--spill-mb N] [--input DIR]
//
// Needs the curation oracle environment (node tools/python-env/python-env.mjs packages/pipeline/python/curation.lock).
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeParquetPart } from '../src/formats/parquet-part-writer.js';
import { idHashBackend } from '../src/steps/normalize/normalize-record.js';
import { normalizeToParquet } from '../src/steps/normalize/normalize.js';
import { curationPython } from '../test/helpers/curation-python.js';
import { generateDocuments } from './synthetic-documents.js';

/** CPU seconds this process spends per GiB written to a fresh file in `dir` (8 MiB writes, no fsync); the file is removed. */
async function pageCacheWriteCost(dir: string): Promise<number> {
  const block = Buffer.alloc(8 * 1024 * 1024, 0x61);
  const blocks = 64; // 512 MiB
  const path = join(dir, 'page-cache-probe');
  const cpu0 = process.cpuUsage();
  const fd = openSync(path, 'w');
  try {
    for (let i = 0; i < blocks; i++) writeSync(fd, block);
  } finally {
    closeSync(fd);
  }
  const cpu = process.cpuUsage(cpu0);
  await rm(path);
  return (cpu.user + cpu.system) / 1e6 / ((blocks * block.byteLength) / 2 ** 30);
}

/** Writes the benchmark's input: two parquet (zstd) files of synthetic documents, 10 % of them exact duplicates. */
async function writeInputs(dir: string, mb: number): Promise<{ count: number; mb: number }> {
  const unique = generateDocuments(mb * 1_000_000 * 0.9);
  const docs = [...unique, ...unique.slice(0, Math.floor(unique.length / 9))];
  const rows = docs.map((text, i) => ({ id: `doc-${i}`, text, url: `https://example.org/${i}` }));
  const columns = [
    { name: 'id', type: 'string' },
    { name: 'text', type: 'string' },
    { name: 'url', type: 'string' },
  ] as const;
  const half = Math.floor(rows.length / 2);
  await writeParquetPart(join(dir, 'a.parquet'), rows.slice(0, half), { columns: [...columns], rowGroupRows: 5000 });
  await writeParquetPart(join(dir, 'b.parquet'), rows.slice(half), { columns: [...columns], rowGroupRows: 5000 });
  return { count: docs.length, mb: docs.reduce((n, d) => n + d.length, 0) / 1e6 };
}

/** The input kept in `dir` (written there first when missing; its counts in `<dir>.json`): its document count and MB of text. */
async function keptInputs(dir: string, mb: number): Promise<{ count: number; mb: number }> {
  const summary = `${dir.replace(/\/+$/, '')}.json`;
  try {
    return JSON.parse(await readFile(summary, 'utf8')) as { count: number; mb: number };
  } catch {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const written = await writeInputs(dir, mb);
    await writeFile(summary, JSON.stringify(written));
    return written;
  }
}

const { values: args } = parseArgs({
  options: { mb: { type: 'string', default: '100' }, only: { type: 'string' }, 'map-task-mb': { type: 'string' }, 'spill-mb': { type: 'string' }, input: { type: 'string' } },
});
const dir = await mkdtemp(join(tmpdir(), 'bench-normalize-'));
try {
  // the generated documents are dropped before measuring, so our process's GC does not walk them
  const input = args.input ?? join(dir, 'in');
  const { count, mb } = args.input === undefined ? await writeInputs(input, Number(args.mb)) : await keptInputs(input, Number(args.mb));
  const cores = cpus().length;
  console.log(`${count} documents, ${mb.toFixed(0)} MB of text; ${cores} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  let oursPerCpuSecond: number | null = null;
  if (args.only !== 'datatrove') {
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    const result = await normalizeToParquet({
      input_path: input,
      output_path: join(dir, 'out'),
      max_parallelism: 1,
      target_partition_bytes: 16 * 1024 * 1024,
      ...(args['map-task-mb'] === undefined ? {} : { map_task_bytes: Number(args['map-task-mb']) * 1024 * 1024 }),
      ...(args['spill-mb'] === undefined ? {} : { spill_bytes: Number(args['spill-mb']) * 1024 * 1024 }),
    });
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const seconds = (performance.now() - start) / 1000;
    oursPerCpuSecond = count / cpuSeconds;
    console.log(
      `normalize: ${result.counters['normalize/unique_records_out']} kept, ${result.counters['normalize/duplicate_records_out']} exact duplicates; ` +
        `${cpuSeconds.toFixed(2)} CPU s (${seconds.toFixed(2)} s wall): ${oursPerCpuSecond.toFixed(0)} documents per CPU-second, ${(mb / cpuSeconds).toFixed(1)} MB per CPU-second; ids hashed by ${idHashBackend()}`,
    );
  }
  if (args.only !== 'ours') {
    const r = spawnSync(await curationPython(), [join(import.meta.dirname, 'datatrove_exact_dedup.py'), input, join(dir, 'datatrove')], {
      encoding: 'utf8',
      env: { ...process.env, HF_HUB_OFFLINE: '1' },
    });
    if (r.status !== 0) throw new Error(`datatrove_exact_dedup.py failed:\n${r.stderr.slice(-3000)}`);
    const dt = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as { seconds: number; cpu_seconds: number; docs_out: number; docs_removed: number };
    const dtPerCpuSecond = count / dt.cpu_seconds;
    console.log(
      `datatrove exact dedup: ${dt.docs_out} kept, ${dt.docs_removed} excluded; ${dt.cpu_seconds.toFixed(2)} CPU s (${dt.seconds.toFixed(2)} s wall): ${dtPerCpuSecond.toFixed(0)} documents per CPU-second`,
    );
    if (oursPerCpuSecond !== null) console.log(`normalize / datatrove: ${(oursPerCpuSecond / dtPerCpuSecond).toFixed(2)}x documents per CPU-second`);
  }
  console.log(`page cache: ${(await pageCacheWriteCost(dir)).toFixed(2)} CPU s per GiB written to a fresh file on this machine`);
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
