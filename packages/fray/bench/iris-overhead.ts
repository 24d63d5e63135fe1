// Iris backend overhead: submit → wait of a trivial binary job on a warm embedded cluster (in place), against the
// local backend running the same job. Run with `npm run bench` (prints figures; asserts nothing).
import { cpus } from 'node:os';
import { startLocalCluster } from '@marin/iris';
import { Entrypoint, createIrisBackend, createLocalClient, silentLogger } from '@marin/fray';

const ROUNDS = Number(process.env['FRAY_BENCH_ROUNDS'] ?? '20');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

await using cluster = await startLocalCluster({ workers: 1 });
await using iris = createIrisBackend({ controller: cluster.address, inPlace: true, logger: silentLogger });
await using local = createLocalClient({ logger: silentLogger });
const run = Date.now().toString(16);
let n = 0;

async function sample(submit: () => Promise<{ wait(): Promise<unknown> }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const job = await submit();
    await job.wait();
    out.push(performance.now() - t0);
  }
  return out;
}

const job = () => ({ name: `bench-${run}-${n++}`, entrypoint: Entrypoint.fromBinary('true') });
await sample(() => iris.submit(job())); // warm-up: worker registered, DB and connections warm
const onIris = await sample(() => iris.submit(job()));
const onLocal = await sample(() => local.submit(job()));
console.log(`fray iris backend (embedded cluster, 1 worker, in place), nproc=${cpus().length}, node ${process.version}`);
console.log(`binary job "true" on iris:  submit → wait  p50 ${percentile(onIris, 50).toFixed(1)} ms  p90 ${percentile(onIris, 90).toFixed(1)} ms  (n=${ROUNDS})`);
console.log(`binary job "true" locally:  submit → wait  p50 ${percentile(onLocal, 50).toFixed(1)} ms  p90 ${percentile(onLocal, 90).toFixed(1)} ms  (n=${ROUNDS})`);
console.log(`extra time on a warm cluster (p50): ${(percentile(onIris, 50) - percentile(onLocal, 50)).toFixed(1)} ms`);
