/**
 * Cold `iris job run` against the direct run, side by side: `node experiments/hello_world.js` and
 * `node bin/iris.js job run -- node experiments/hello_world.js` (an ephemeral local cluster: CLI start,
 * controller, worker, placement, the task, completion, shutdown), alternated `runs` times, each with a
 * fresh `--prefix` so both do the same work. Prints the medians and their difference; asserts nothing.
 *
 * Run: `node --conditions=@marin/source --import tsx bench/cold-run.bench.ts` after a build
 * (`npx nx run @marin/iris:build`, and the executor's for hello_world.js). IRIS_BENCH_COLD_RUNS sets `runs`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const IRIS_BIN = fileURLToPath(new URL('../bin/iris.js', import.meta.url));
const EXPERIMENT = 'experiments/hello_world.js';

/** What the cold-run benchmark measured (milliseconds of wall time, process start to exit). */
export interface ColdRunBenchResult {
  readonly runs: number;
  readonly loadAverage: number;
  readonly directP50Ms: number;
  readonly irisP50Ms: number;
  /** Median of the per-pair differences (iris minus direct). */
  readonly differenceP50Ms: number;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function timed(argv: readonly string[]): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: REPO_ROOT, stdio: 'ignore', env: { ...process.env, IRIS_CONTROLLER_ADDRESS: '' } });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`${argv.join(' ')} exited ${code}`))));
  });
}

/** Runs both forms `runs` times, alternating, after one unmeasured run of each (disk cache). */
export async function runColdRunBench(options: { runs?: number } = {}): Promise<ColdRunBenchResult> {
  const runs = options.runs ?? (Number(process.env['IRIS_BENCH_COLD_RUNS']) || 7);
  const dir = mkdtempSync(join(tmpdir(), 'iris-cold-run-'));
  try {
    let n = 0;
    const direct = (): Promise<number> => timed([EXPERIMENT, '--prefix', join(dir, `p${n++}`)]);
    const iris = (): Promise<number> => timed([IRIS_BIN, 'job', 'run', '--', 'node', EXPERIMENT, '--prefix', join(dir, `p${n++}`)]);
    await direct();
    await iris();
    const loadAverage = loadavg()[0] ?? NaN;
    const directMs: number[] = [];
    const irisMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      directMs.push(await direct());
      irisMs.push(await iris());
    }
    return {
      runs,
      loadAverage,
      directP50Ms: median(directMs),
      irisP50Ms: median(irisMs),
      differenceP50Ms: median(irisMs.map((ms, i) => ms - (directMs[i] as number))),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures as printable lines. */
export function formatColdRunBench(r: ColdRunBenchResult): string {
  return [
    `cold \`iris job run -- node ${EXPERIMENT}\` against \`node ${EXPERIMENT}\` (${r.runs} runs each, alternated; load average ${r.loadAverage.toFixed(2)}, ${availableParallelism()} cores):`,
    `  direct p50 ${r.directP50Ms.toFixed(0)} ms, iris p50 ${r.irisP50Ms.toFixed(0)} ms, difference p50 ${r.differenceP50Ms.toFixed(0)} ms (target: within 600 ms)`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(formatColdRunBench(await runColdRunBench()));
}
