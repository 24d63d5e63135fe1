import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createIrisBackend, findWorkspaceRoot } from '@marin/fray';
import { startLocalCluster } from '@marin/iris';
import { DispatchStepRunner, Executor, ExecutorStep, FrayStepRunner, silentLogger, versioned } from '@marin/executor';

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_FLAGS = ['--conditions=@marin/source', '--import', 'tsx'];
const ROUNDS = 7;
/** The re-entry target: plain JS, so it also runs on the built dist/ with no loader. */
const REMOTE_ENTRY = join(PACKAGE_DIR, 'bench', 'remote-entry.js');

/** The same step as `bench/remote-entry.js` (same name and config, so the same output path). */
const benchStep = new ExecutorStep({
  name: 'bench/remote-step',
  config: { n: versioned(1) },
  fn: async function writeMarker(config, ctx) {
    await mkdir(ctx.outputPath, { recursive: true });
    await writeFile(join(ctx.outputPath, 'marker.json'), JSON.stringify(config));
  },
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timeRun(prefix: string, step: ExecutorStep, runner?: DispatchStepRunner): Promise<number> {
  const ex = new Executor({ prefix, logger: silentLogger, progressStream: { write: () => true }, ...(runner ? { runner } : {}) });
  const t0 = performance.now();
  await ex.run([step], { progress: 'plain' });
  return performance.now() - t0;
}

/**
 * The extra time of a remote step over the same step inline: `Executor.run` of one step on a fresh
 * prefix, inline vs. as a Fray job on a warm embedded Iris cluster (1 worker, in place), whose task
 * re-enters `bench/remote-entry.js` with `--run-step` (node + the source loader, and plain node on
 * the built dist/ when it exists). Target: < 500 ms over inline.
 */
export async function benchRemote(): Promise<void> {
  console.log(`executor remote steps (nproc=${cpus().length}, ${ROUNDS} rounds, median)`);
  const root = await mkdtemp(join(tmpdir(), 'executor-remote-bench-'));
  await using cluster = await startLocalCluster({ workers: 1 });
  const irisClient = cluster.client();
  await using backend = createIrisBackend({ irisClient, inPlace: true, logger: { info: () => {}, warn: () => {} } });
  const workspace = findWorkspaceRoot(PACKAGE_DIR);
  const remoteStep = new ExecutorStep({ name: benchStep.name, config: benchStep.config, fn: benchStep.fn, resources: { cpu: 0.5, ram: '256m' } });
  const runnerFor = (execArgv: string[]): DispatchStepRunner =>
    new DispatchStepRunner({
      fray: new FrayStepRunner({ client: backend, workspace, reentry: { entryScript: REMOTE_ENTRY, userArgs: [], execArgv, steps: [remoteStep] } }),
    });
  try {
    let n = 0;
    const fresh = (): string => join(root, `p${n++}`);
    const measure = async (step: ExecutorStep, runner?: DispatchStepRunner): Promise<number> => {
      await timeRun(fresh(), step, runner); // warm-up
      const times: number[] = [];
      for (let i = 0; i < ROUNDS; i++) times.push(await timeRun(fresh(), step, runner));
      return median(times);
    };
    const inline = await measure(benchStep);
    console.log(`  one step inline, Executor.run:                      ${inline.toFixed(1)} ms`);
    const source = await measure(remoteStep, runnerFor(SOURCE_FLAGS));
    console.log(`  same step as an Iris job (node + tsx, from source): ${source.toFixed(1)} ms (+${(source - inline).toFixed(1)} ms over inline)`);
    const built = ['executor', 'fray', 'rigging', 'iris'].every((p) => existsSync(join(PACKAGE_DIR, '..', p, 'dist', 'index.js')));
    if (built) {
      const dist = await measure(remoteStep, runnerFor([]));
      console.log(`  same step as an Iris job (plain node, dist/):       ${dist.toFixed(1)} ms (+${(dist - inline).toFixed(1)} ms over inline; target < 500 ms)`);
    } else {
      console.log('  from dist/: skipped, run `nx run-many -t build` first');
    }
  } finally {
    await irisClient.close();
    await rm(root, { recursive: true, force: true });
  }
}
