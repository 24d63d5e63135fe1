// Ray backend overhead next to Iris's, in one run: submit → wait of a trivial binary job on a local Ray head
// (packages/fray/python/ray.lock), the same job with an already built pythonEnv (the launcher's warm path: Node,
// rigging, one hash and one access()), and on a warm embedded Iris cluster (1 worker, in place). Run with `npm run bench`
// (prints figures; asserts nothing). The Ray environment must be built first:
//   node tools/python-env/python-env.mjs packages/fray/python/ray.lock
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster } from '@marin/iris';
import { Entrypoint, PythonEnvSpec, createIrisBackend, createRayClient, silentLogger } from '@marin/fray';
import { startRayHead } from '@marin/fray/testing';

const ROUNDS = Number(process.env['FRAY_BENCH_ROUNDS'] ?? '10');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

await using head = await startRayHead({ numCpus: 2 });
await using cluster = await startLocalCluster({ workers: 1 });
const pythonEnvCacheDir = mkdtempSync(join(tmpdir(), 'fray-bench-pyenv-'));
await using ray = createRayClient({ address: head.address, logger: silentLogger, jobPrefix: `bench-${Date.now().toString(36)}-`, pythonEnvCacheDir });
await using iris = createIrisBackend({ controller: cluster.address, inPlace: true, logger: silentLogger });
let n = 0;
const job = () => ({ name: `bench-${n++}`, entrypoint: Entrypoint.fromBinary('true') });
const pythonEnv = PythonEnvSpec.fromLock('six==1.17.0\n', { name: 'six.lock' });
const envJob = () => ({ ...job(), pythonEnv });

async function once(submit: () => Promise<{ wait(): Promise<unknown> }>): Promise<number> {
  const t0 = performance.now();
  await (await submit()).wait();
  return performance.now() - t0;
}

// Warm-up on both: Ray's first job starts its job agent's workers, Iris's first one registers the worker.
await (await ray.submit(job())).wait();
await (await ray.submit(envJob())).wait();   // builds the environment once
await (await iris.submit(job())).wait();
// Interleaved rounds, so both backends see the same machine load.
const onRay: number[] = [];
const onRayEnv: number[] = [];
const onIris: number[] = [];
// Ray's own start → end of each job: wait() only sees the end at its next poll (100 ms ×1.5, capped at 2 s).
const rayRun: number[] = [];
const rayEnvRun: number[] = [];
const runTime = async (id: string): Promise<number> => {
  const info = await ray.handle(id).info();
  return (info.endTimeMs ?? Number.NaN) - (info.startTimeMs ?? Number.NaN);
};
for (let i = 0; i < ROUNDS; i++) {
  const plain = job();
  onRay.push(await once(() => ray.submit(plain)));
  rayRun.push(await runTime(ray.toSubmission(plain).submission_id));
  const withEnv = envJob();
  onRayEnv.push(await once(() => ray.submit(withEnv)));
  rayEnvRun.push(await runTime(ray.toSubmission(withEnv).submission_id));
  onIris.push(await once(() => iris.submit(job())));
}
rmSync(pythonEnvCacheDir, { recursive: true, force: true });
const fmt = (v: number[]) => `p50 ${percentile(v, 50).toFixed(1)} ms  p90 ${percentile(v, 90).toFixed(1)} ms  (n=${v.length})`;
console.log(`fray ray vs iris (local Ray head, 2 logical CPUs; embedded Iris, 1 worker, in place), nproc=${cpus().length}, node ${process.version}`);
console.log(`binary job "true" on ray:   submit → wait  ${fmt(onRay)}`);
console.log(`binary job "true" on ray with a built pythonEnv:  submit → wait  ${fmt(onRayEnv)}`);
console.log(`binary job "true" on iris:  submit → wait  ${fmt(onIris)}`);
console.log(`ray's start → end of the job, without / with a built pythonEnv:  ${fmt(rayRun)}  /  ${fmt(rayEnvRun)}`);
console.log(`built pythonEnv over none on ray (p50, start → end): ${(percentile(rayEnvRun, 50) - percentile(rayRun, 50)).toFixed(1)} ms`);
console.log(`ray over iris (p50): ${(percentile(onRay, 50) - percentile(onIris, 50)).toFixed(1)} ms`);
