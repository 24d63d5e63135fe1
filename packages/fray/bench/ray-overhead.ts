// Ray backend overhead next to Iris's, in one run: submit → wait of a trivial binary job on a local Ray head
// (packages/fray/python/ray.lock) and on a warm embedded Iris cluster (1 worker, in place). Run with `npm run bench`
// (prints figures; asserts nothing). The Ray environment must be built first:
//   node tools/python-env/python-env.mjs packages/fray/python/ray.lock
import { cpus } from 'node:os';
import { startLocalCluster } from '@marin/iris';
import { Entrypoint, createIrisBackend, createRayClient, silentLogger } from '@marin/fray';
import { startRayHead } from '@marin/fray/testing';

const ROUNDS = Number(process.env['FRAY_BENCH_ROUNDS'] ?? '10');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

await using head = await startRayHead({ numCpus: 2 });
await using cluster = await startLocalCluster({ workers: 1 });
await using ray = createRayClient({ address: head.address, logger: silentLogger, jobPrefix: `bench-${Date.now().toString(36)}-` });
await using iris = createIrisBackend({ controller: cluster.address, inPlace: true, logger: silentLogger });
let n = 0;
const job = () => ({ name: `bench-${n++}`, entrypoint: Entrypoint.fromBinary('true') });

async function once(submit: () => Promise<{ wait(): Promise<unknown> }>): Promise<number> {
  const t0 = performance.now();
  await (await submit()).wait();
  return performance.now() - t0;
}

// Warm-up on both: Ray's first job starts its job agent's workers, Iris's first one registers the worker.
await (await ray.submit(job())).wait();
await (await iris.submit(job())).wait();
// Interleaved rounds, so both backends see the same machine load.
const onRay: number[] = [];
const onIris: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  onRay.push(await once(() => ray.submit(job())));
  onIris.push(await once(() => iris.submit(job())));
}
const fmt = (v: number[]) => `p50 ${percentile(v, 50).toFixed(1)} ms  p90 ${percentile(v, 90).toFixed(1)} ms  (n=${v.length})`;
console.log(`fray ray vs iris (local Ray head, 2 logical CPUs; embedded Iris, 1 worker, in place), nproc=${cpus().length}, node ${process.version}`);
console.log(`binary job "true" on ray:   submit → wait  ${fmt(onRay)}`);
console.log(`binary job "true" on iris:  submit → wait  ${fmt(onIris)}`);
console.log(`ray over iris (p50): ${(percentile(onRay, 50) - percentile(onIris, 50)).toFixed(1)} ms`);
