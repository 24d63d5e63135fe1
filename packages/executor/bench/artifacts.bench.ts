import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonEnvCacheDir, pythonEnvKey } from '@marin/rigging';
import { runArtifacts } from '../src/artifact/artifact-runner.js';
import { ArtifactStep } from '../src/artifact/artifact-step.js';
import { planArtifacts } from '../src/artifact/plan.js';
import { silentLogger } from '../src/logger.js';
import { artifactGraph } from './fixtures/artifact-graph.js';

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The bench graph, built by plain JavaScript as a user's experiment file is (bench/fixtures/artifact-graph.js). */
function graph(n: number): ArtifactStep[] {
  return artifactGraph(ArtifactStep, n);
}

async function marinPython(): Promise<string> {
  const lock = await readFile(join(PACKAGE_DIR, 'python', 'marin-core.lock'));
  return join(pythonEnvCacheDir(), `py3.12-${pythonEnvKey(lock, '3.12')}`, 'bin', 'python');
}

/** Wall and CPU seconds of a timed region (CPU: the process's user + system time, every thread). */
interface Timing {
  seconds: number;
  cpu: number;
}

function python(args: string[], prefix: string): Promise<Timing> {
  return marinPython().then(
    (py) =>
      new Promise((resolve, reject) => {
        const child = spawn(py, [join(PACKAGE_DIR, 'bench', 'fixtures', 'artifact_bench.py'), ...args], {
          env: { ...process.env, MARIN_PREFIX: prefix, JAX_PLATFORMS: 'cpu' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
        child.on('error', reject);
        child.on('close', (code) => {
          if (code !== 0) reject(new Error(`artifact_bench.py ${args.join(' ')} failed (create the env with: node tools/python-env/python-env.mjs packages/executor/python/marin-core.lock --python 3.12):\n${err.slice(-2000)}`));
          else resolve(JSON.parse(out) as Timing);
        });
      }),
  );
}

/**
 * ArtifactStep figures beside Python Marin 0.2.227 in one run, both timed inside their process (imports excluded:
 * graph construction, lowering, status reads — and for the rerun, everything `run` does — are timed), the best of
 * {@link ROUNDS} rounds each (graphs rebuilt every round), as wall time and as the process's CPU time (less
 * sensitive to other work on a shared machine): planning a 10,000-artifact graph (fingerprints, paths, status reads
 * on a local prefix; target ≥ 10x faster) and a no-op rerun of 1,000 built artifacts (target ≥ 5x).
 */
const ROUNDS = 3;

async function best(round: () => Promise<void>): Promise<Timing> {
  let seconds = Infinity;
  let cpu = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    // Each round starts on a collected heap (the Python side runs gc.collect() too): the previous round's garbage is
    // not charged to this one. `npm run bench` passes --expose-gc.
    (globalThis as { gc?: () => void }).gc?.();
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await round();
    const c = process.cpuUsage(c0);
    seconds = Math.min(seconds, (performance.now() - t0) / 1000);
    cpu = Math.min(cpu, (c.user + c.system) / 1e6);
  }
  return { seconds, cpu };
}

function line(what: string, ts: Timing, py: Timing, target: number): string {
  const f = (x: number): string => x.toFixed(3);
  return (
    `  ${what}: wall ts ${f(ts.seconds)} s, python ${f(py.seconds)} s (${(py.seconds / ts.seconds).toFixed(1)}x); ` +
    `cpu ts ${f(ts.cpu)} s, python ${f(py.cpu)} s (${(py.cpu / ts.cpu).toFixed(1)}x); target >= ${target}x`
  );
}

export async function benchArtifacts(): Promise<void> {
  console.log(`executor ArtifactSteps vs marin-core 0.2.227 (${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  const prefix = await mkdtemp(join(tmpdir(), 'artifact-bench-'));
  try {
    const n = 10_000;
    const tsPlan = await best(async () => {
      const plan = await planArtifacts(graph(n), { prefix, checkDrift: false });
      if (plan.length !== n) throw new Error(`planned ${plan.length} of ${n}`);
    });
    const pyPlan = await python(['plan', String(n), String(ROUNDS)], prefix);
    console.log(line('plan 10,000 artifacts', tsPlan, pyPlan, 10));

    const built = join(prefix, 'built');
    await runArtifacts(graph(1000), { prefix: built, logger: silentLogger });
    const tsRerun = await best(async () => void (await runArtifacts(graph(1000), { prefix: built, logger: silentLogger })));
    const pyRerun = await python(['rerun', '1000', String(ROUNDS)], built);
    console.log(line('no-op rerun of 1,000 built artifacts', tsRerun, pyRerun, 5));
    console.log(`  load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await rm(prefix, { recursive: true, force: true });
  }
}
