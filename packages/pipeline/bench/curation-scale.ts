// Curation at scale (a bench, not a test): seeded synthetic parquet (planted exact and near duplicates, cached on
// local disk by its parameters) uploaded to a gs:// prefix in the GCS emulator, then normalize → MinHash → fuzzy
// dedup → consolidate → tokenize as executor steps whose tasks run as Fray jobs on a local Iris cluster, twice: a
// clean run, and a run with two SIGKILLs: midway through the MinHash map, the worker-side supervisor process of a
// running task (the worker loses the task; Iris retries it), and midway through the fuzzy-dedup map, a task's own
// process (its job fails, the step fails, and the rerun resumes with the tasks that have no done marker). The two
// results must be equal: the consolidated output's ids per part and every file of the token cache, by hash. Prints
// per-stage wall time and each phase's peak RSS per task (sampled by the workers) against a stated bound.
//
//   nice -n 15 node --conditions=@marin/source --import tsx packages/pipeline/bench/curation-scale.ts [--bytes 2e9]
//   ... --scaling 1,2,4 --bytes 2e8     # the same MinHash + fuzzy dedup on 1, 2 and 4 workers instead
//
// Options: --bytes (text bytes, default 2e9), --workers (4), --kills (stage:export:supervisor|task,…; default
// minhash:minhashPartTask:supervisor,dups:fuzzyDupsMapTask:task), --kill-after (seconds a task runs before its kill,
// 10), --rss-bound-mb (1536), --json <file> (write the figures), --keep (keep the emulator's files). Corpora are cached under $MARIN_BENCH_CACHE (default ~/.cache/marin/bench).
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Executor, outputPathOf, silentLogger } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { withClient } from '@marin/fray';
import { copyTree, createReadStream, filesystemFor, listFilesRecursive, readText } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';
import { listPartFiles } from '../src/attributes/attribute-dataset.js';
import { readParquetRecords } from '../src/formats/parquet-records.js';
import { defaultConsolidate } from '../src/steps/consolidate/default-consolidate.js';
import { defaultFuzzyDedup, defaultMinhash } from '../src/steps/curation/curation-steps.js';
import { defaultNormalize } from '../src/steps/normalize/default-normalize.js';
import { defaultTokenize } from '../src/steps/tokenize/default-tokenize.js';
import { killTaskWhenRunning, newTaskUsage, startScaleCluster, summarizeUsage } from './scale-cluster.js';
import type { KillRecord, KillTarget, ScaleCluster, TaskUsage } from './scale-cluster.js';
import { ensureScaleCorpus } from './scale-corpus.js';

const { values: args } = parseArgs({
  options: {
    bytes: { type: 'string', default: '2e9' },
    workers: { type: 'string', default: '4' },
    scaling: { type: 'string' },
    kills: { type: 'string', default: 'minhash:minhashPartTask:supervisor,dups:fuzzyDupsMapTask:task' },
    'kill-after': { type: 'string', default: '10' },
    'rss-bound-mb': { type: 'string', default: '1536' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const bytes = Number(args.bytes);
const rssBound = Number(args['rss-bound-mb']) * 2 ** 20;
const MB = 1e6;
const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');
const TASK = { cpu: 1, ram: '3g' };

console.log(`curation scale bench: ${fmt(bytes / MB)} MB of text, ${availableParallelism()} cores, load ${load()}`);
const corpus = await ensureScaleCorpus({
  textBytes: bytes,
  seed: 7,
  fileBytes: Math.min(128 * 2 ** 20, Math.max(4 * 2 ** 20, Math.floor(bytes / 16))),
  rowGroupBytes: Math.min(32 * 2 ** 20, Math.max(2 ** 20, Math.floor(bytes / 64))),
  exactDuplicateRate: 0.05,
  nearDuplicateRate: 0.1,
  sourceWindow: 20_000,
});
console.log(
  `corpus ${corpus.key}: ${fmt(corpus.documents)} documents, ${fmt(corpus.textBytes / MB)} MB of text in ${corpus.files.length} parquet files (${fmt(corpus.fileBytes / MB)} MB zstd), ` +
    `${fmt(corpus.planted.exact)} exact + ${fmt(corpus.planted.near)} near duplicates planted; ${corpus.cached ? 'from the cache' : `generated in ${fmt(corpus.seconds, 1)} s`}`,
);

// Sixteen normalized partitions whatever the size (normalize sizes them by input file bytes), so every stage has
// work for four workers.
const partitionBytes = Math.max(2 ** 20, Math.floor(corpus.fileBytes / 16));
const scratch = await mkdtemp(join(tmpdir(), 'curation-scale-'));
const gcs = await startFakeGcs({ setEnv: true, storageDir: join(scratch, 'gcs') });
const figures: Record<string, unknown> = { bytes, cores: availableParallelism(), corpus: { ...corpus, dir: undefined } };
try {
  const bucket = await gcs.createUniqueBucket('curation-scale');
  const raw = `gs://${bucket}/raw`;
  let t = performance.now();
  await copyTree(corpus.dir, raw);
  console.log(`uploaded to ${raw} in ${fmt((performance.now() - t) / 1000, 1)} s`);
  const taskEnv = { STORAGE_EMULATOR_HOST: gcs.endpoint };
  if (args.scaling !== undefined) {
    figures['scaling'] = await scaling(`gs://${bucket}`, raw, args.scaling.split(',').map(Number), taskEnv);
  } else {
    await using cluster = await startScaleCluster({ workers: Number(args.workers), cpuPerWorker: 1, memoryBytesPerWorker: 4 * 2 ** 30, taskEnv });
    const clean = await pipelineRun(cluster, `gs://${bucket}/clean`, raw, []);
    const kills = (args.kills ?? '').split(',').filter((k) => k !== '').map((k) => {
      const [stage = '', exportName = '', target = 'task'] = k.split(':');
      return { stage, exportName, target: target as KillTarget, afterSeconds: Number(args['kill-after']) };
    });
    const killed = await pipelineRun(cluster, `gs://${bucket}/killed`, raw, kills);
    t = performance.now();
    const [a, b] = [await resultDigest(clean.outputs), await resultDigest(killed.outputs)];
    const equal = JSON.stringify(a) === JSON.stringify(b);
    console.log(`\nresult of the killed run ${equal ? 'EQUALS' : 'DIFFERS FROM'} the clean run's (${a.consolidated.length} consolidated parts, ${fmt(a.kept)} documents kept; ${a.tokens.length} token cache files; compared in ${fmt((performance.now() - t) / 1000, 1)} s)`);
    figures['clean'] = clean.figures;
    figures['killed'] = killed.figures;
    figures['equal'] = equal;
    figures['digest'] = { kept: a.kept, consolidatedParts: a.consolidated.length, tokenFiles: a.tokens.length };
    if (!equal) process.exitCode = 1;
  }
} finally {
  if (args.json !== undefined) await writeFile(args.json, `${JSON.stringify(figures, null, 2)}\n`);
  await gcs.close();
  if (!args.keep) await rm(scratch, { recursive: true, force: true });
}

interface Kill {
  stage: string;
  exportName: string;
  target: KillTarget;
  afterSeconds: number;
}

/** The five steps over `raw`, every task a Fray job with {@link TASK} resources. */
function steps(raw: string, parallelism: number): { normalize: ExecutorStep; minhash: ExecutorStep; dups: ExecutorStep; consolidate: ExecutorStep; tokenize: ExecutorStep } {
  const common = { resources: TASK, maxParallelism: parallelism };
  const normalize = defaultNormalize('scale', raw, { ...common, targetPartitionBytes: partitionBytes });
  const main = outputPathOf(normalize, 'outputs/main');
  const minhash = defaultMinhash('scale', main, common);
  const dups = defaultFuzzyDedup('scale', minhash, { ...common, numPartitions: 8 });
  const consolidate = defaultConsolidate('scale', main, [{ type: 'remove_docs', attribute_path: outputPathOf(dups, 'outputs/source_000'), name: 'fuzzy_duplicate' }], common);
  const tokenize = defaultTokenize('scale', consolidate, 'marin-tiny-bpe', { resources: TASK, maxWorkers: 8 });
  return { normalize, minhash, dups, consolidate, tokenize };
}

/** Runs the steps one stage at a time (timing each), killing a task (or its supervisor) midway in the stages `kills` name. */
async function pipelineRun(cluster: ScaleCluster, prefix: string, raw: string, kills: readonly Kill[]): Promise<{ outputs: { consolidated: string; tokenized: string }; figures: Record<string, unknown> }> {
  const plan = kills.map((k) => `the ${k.target === 'task' ? 'process' : 'supervisor'} of a ${k.exportName} task in ${k.stage} after ${k.afterSeconds} s`).join(', ');
  console.log(`\n== ${kills.length === 0 ? 'clean run' : `run with SIGKILLs of ${plan}`} under ${prefix} (load ${load()})`);
  const s = steps(raw, Number(args.workers));
  // An executor runs once: one per stage run.
  const executor = (): Executor => new Executor({ prefix, logger: silentLogger, progressStream: { write: () => true } });
  const seen = new Set<string>((await cluster.client.listJobs({ limit: 500 })).map((j) => j.jobId));
  const stages: Record<string, unknown>[] = [];
  const paths = new Map<ExecutorStep, string>();
  const killRecords: KillRecord[] = [];
  for (const [name, step] of Object.entries(s)) {
    const stop = new AbortController();
    const kill = kills.find((k) => k.stage === name);
    const watcher: Promise<KillRecord | null> | null = kill === undefined ? null : killTaskWhenRunning(kill.exportName, kill.target, kill.afterSeconds, stop.signal);
    const start = performance.now();
    let failure: string | null = null;
    let firstAttempt: number | null = null;
    try {
      for (const [k, v] of await withClient(cluster.backend, () => executor().run([step]))) paths.set(k, v);
    } catch (e) {
      // The step failed (the killed task's job): rerun it, which resumes with the tasks that have no done marker.
      failure = e instanceof Error ? e.message.split('\n')[0] ?? '' : String(e);
      firstAttempt = (performance.now() - start) / 1000;
      if (watcher === null) throw e;
      for (const [k, v] of await withClient(cluster.backend, () => executor().run([step]))) paths.set(k, v);
    }
    const wall = (performance.now() - start) / 1000;
    stop.abort();
    const killedNow: KillRecord | null = watcher === null ? null : await watcher;
    if (killedNow !== null) killRecords.push(killedNow);
    const usage: TaskUsage[] = await newTaskUsage(cluster.client, seen);
    const phases = summarizeUsage(usage);
    const maxRss = Math.max(0, ...phases.map((p) => p.maxRssBytes));
    stages.push({ stage: name, wallSeconds: wall, firstAttemptSeconds: firstAttempt, failure, killed: killedNow, phases, load: loadavg()[0] });
    console.log(`${name.padEnd(12)} ${fmt(wall, 1).padStart(7)} s wall, peak RSS per task ${fmt(maxRss / 2 ** 20)} MiB (bound ${fmt(rssBound / 2 ** 20)} MiB: ${maxRss <= rssBound ? 'within' : 'EXCEEDED'}), load ${load()}`);
    for (const p of phases) {
      const notes = [p.failed > 0 ? `${p.failed} failed` : '', p.retried > 0 ? `${p.retried} retried by Iris` : ''].filter((x) => x !== '');
      console.log(`  ${p.phase.padEnd(48)} ${String(p.tasks).padStart(3)} jobs${notes.length > 0 ? ` (${notes.join(', ')})` : ''}, peak RSS ${fmt(p.maxRssBytes / 2 ** 20).padStart(5)} MiB, longest ${fmt(p.maxSeconds, 1)} s, sum ${fmt(p.sumSeconds, 1)} s`);
    }
    if (killedNow !== null) {
      console.log(`  SIGKILLed the ${killedNow.target} (pid ${killedNow.pid}) of ${killedNow.jobId} on worker ${killedNow.workerId} after the task ran ${fmt(killedNow.runningSeconds, 1)} s, ${fmt(killedNow.atSeconds, 1)} s into the stage`);
      console.log(`  ${failure === null ? 'the step succeeded without a rerun' : `the step failed after ${fmt(firstAttempt ?? 0, 1)} s (${failure.slice(0, 160)}); its rerun resumed`}`);
    }
    if (maxRss > rssBound) process.exitCode = 1;
  }
  return { outputs: { consolidated: paths.get(s.consolidate) ?? '', tokenized: paths.get(s.tokenize) ?? '' }, figures: { prefix, stages, kills: killRecords } };
}

/** The same MinHash + fuzzy dedup on each worker count, over one normalized dataset (normalized in this process). */
async function scaling(root: string, raw: string, workerCounts: number[], taskEnv: Record<string, string>): Promise<Record<string, unknown>[]> {
  // Eight parts and four shuffle partitions: each job's start (a Node process loading the package) is a fixed cost.
  const normalize = defaultNormalize('scale', raw, { targetPartitionBytes: Math.max(2 ** 20, Math.floor(corpus.fileBytes / 8)), maxParallelism: 2 });
  let t = performance.now();
  const out = await new Executor({ prefix: `${root}/scaling-input`, logger: silentLogger, progressStream: { write: () => true } }).run([normalize]);
  const main = `${out.get(normalize) ?? ''}/outputs/main`;
  console.log(`normalized in this process in ${fmt((performance.now() - t) / 1000, 1)} s: ${(await listPartFiles(main)).length} parts`);
  const rows: Record<string, unknown>[] = [];
  let base = 0;
  for (const workers of workerCounts) {
    await using cluster = await startScaleCluster({ workers, cpuPerWorker: 1, memoryBytesPerWorker: 4 * 2 ** 30, taskEnv });
    const common = { resources: TASK, maxParallelism: workers };
    const minhash = defaultMinhash('scale', main, common);
    const dups = defaultFuzzyDedup('scale', minhash, { ...common, numPartitions: 4 });
    const loadBefore = loadavg()[0] ?? 0;
    t = performance.now();
    await withClient(cluster.backend, () => new Executor({ prefix: `${root}/scaling-${workers}`, logger: silentLogger, progressStream: { write: () => true } }).run([dups]));
    const wall = (performance.now() - t) / 1000;
    if (base === 0) base = wall * workers;
    const usage = summarizeUsage(await newTaskUsage(cluster.client, new Set()));
    const taskSeconds = usage.reduce((s, p) => s + p.sumSeconds, 0);
    const row = { workers, wallSeconds: wall, speedup: base / wall, efficiency: base / (workers * wall), taskSeconds, maxRssBytes: Math.max(...usage.map((u) => u.maxRssBytes)), loadBefore, loadAfter: loadavg()[0] };
    rows.push(row);
    console.log(
      `${workers} worker(s): ${fmt(wall, 1)} s wall (MinHash + fuzzy dedup), speedup ${fmt(row.speedup, 2)}x, efficiency ${fmt(row.efficiency * 100)} %, ` +
        `task-seconds ${fmt(taskSeconds, 1)}, peak RSS per task ${fmt(row.maxRssBytes / 2 ** 20)} MiB, load ${fmt(loadBefore, 1)} → ${fmt(row.loadAfter ?? 0, 1)}`,
    );
  }
  return rows;
}

/** Hashes that must match between runs: the ids of each consolidated part, in order, and every token cache file. */
async function resultDigest(outputs: { consolidated: string; tokenized: string }): Promise<{ kept: number; consolidated: { part: string; rows: number; sha: string }[]; tokens: { file: string; bytes: number; sha: string }[]; ledger: string }> {
  const consolidated = [];
  let kept = 0;
  for (const url of await listPartFiles(outputs.consolidated)) {
    const h = createHash('sha256');
    let rows = 0;
    for await (const r of readParquetRecords(url, { columns: ['id'] })) {
      h.update(`${String(r['id'])}\n`);
      rows += 1;
    }
    kept += rows;
    consolidated.push({ part: url.slice(url.lastIndexOf('/') + 1), rows, sha: h.digest('hex') });
  }
  const train = `${outputs.tokenized}/train`;
  const tokens = [];
  for (const { rel, info } of (await listFilesRecursive(filesystemFor(train), train)).sort((x, y) => x.rel.localeCompare(y.rel))) {
    const h = createHash('sha256');
    for await (const chunk of await createReadStream(`${train}/${rel}`)) h.update(chunk as Buffer);
    tokens.push({ file: rel, bytes: info.size, sha: h.digest('hex') });
  }
  return { kept, consolidated, tokens, ledger: await readText(`${train}/shard_ledger.json`) };
}
