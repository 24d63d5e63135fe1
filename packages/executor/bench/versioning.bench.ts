import { float } from '@marin/rigging';
import { ExecutorStep } from '../src/dag/executor-step.js';
import { versioned } from '../src/dag/versioned-value.js';
import { silentLogger } from '../src/logger.js';
import { VersionGraph } from '../src/versioning/version-graph.js';

const CHAIN_LENGTH = 50;
const FAN_IN = 3;

function versionedFields(i: number): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (let f = 0; f < 20; f++) {
    switch (f % 5) {
      case 0: fields[`int_${f}`] = versioned(i + f); break;
      case 1: fields[`lr_${f}`] = versioned(3e-4 * (f + 1)); break;
      case 2: fields[`name_${f}`] = versioned(`dataset-${i % 97}-${f}`); break;
      case 3: fields[`scale_${f}`] = versioned(float(f)); break;
      default: fields[`opts_${f}`] = versioned({ warmup: f, tags: ['a', 'b'], ratio: 0.5 });
    }
  }
  return fields;
}

/**
 * A DAG of `n` steps: chains of 50, where every 10th step of a chain also reads three steps from
 * earlier chains (fan-in). Each config carries 20 versioned fields.
 */
export function generateDag(n: number): ExecutorStep[] {
  const steps: ExecutorStep[] = [];
  for (let i = 0; i < n; i++) {
    const pos = i % CHAIN_LENGTH;
    const config: Record<string, unknown> = { ...versionedFields(i), unversioned: `note ${i}` };
    if (pos > 0) config['input'] = (steps[i - 1] as ExecutorStep).cd('data');
    if (pos > 0 && pos % 10 === 0 && i >= CHAIN_LENGTH) {
      config['extra'] = Array.from({ length: FAN_IN }, (_, k) => steps[(i * 7919 + k * 104729) % (i - pos)]);
    }
    steps.push(new ExecutorStep({ name: `bench/chain${Math.floor(i / CHAIN_LENGTH)}/step${pos}`, fn: null, config }));
  }
  return steps;
}

interface Timing {
  wallMs: number;
  /** CPU time of this process (user + system): what a shared, busy machine cannot inflate much. */
  cpuMs: number;
}

function timeVersions(steps: ExecutorStep[]): Timing {
  // Start each run from a clean heap when --expose-gc is given, so runs do not pay for each other.
  (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const graph = new VersionGraph({ prefix: 'gs://marin-us-central1', logger: silentLogger });
  for (const s of steps) graph.computeVersion(s, false);
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  if (graph.outputPaths.size !== steps.length) throw new Error('bench: missing output paths');
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Prints the time to version a generated 10,000- and 20,000-step DAG (median of 5 runs each). */
export function benchVersioning(): void {
  timeVersions(generateDag(10_000)); // warm-up (JIT)
  const results = new Map<number, Timing>();
  for (const n of [10_000, 20_000]) {
    const steps = generateDag(n);
    const runs = Array.from({ length: 5 }, () => timeVersions(steps));
    const t = { wallMs: median(runs.map((r) => r.wallMs)), cpuMs: median(runs.map((r) => r.cpuMs)) };
    results.set(n, t);
    console.log(
      `versioning: ${n} steps (chains of ${CHAIN_LENGTH}, fan-in ${FAN_IN}, 20 versioned fields): ` +
        `${t.wallMs.toFixed(0)} ms wall, ${t.cpuMs.toFixed(0)} ms CPU (median of 5; target < 1,000 ms)`,
    );
  }
  const a = results.get(10_000) as Timing;
  const b = results.get(20_000) as Timing;
  console.log(
    `versioning: 20,000 / 10,000 steps = ${(b.wallMs / a.wallMs).toFixed(2)}x wall, ` +
      `${(b.cpuMs / a.cpuMs).toFixed(2)}x CPU (target < 2.2x)`,
  );
}
